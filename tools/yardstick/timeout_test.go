package yardstick

import (
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func buildTimeout(t *testing.T) string { return buildC(t, "timeout", "yardstick-timeout") }

var (
	timeoutSummaryRe = regexp.MustCompile(`^--- yardstick timeout: overshoot = actual - requested \(monotonic clock\), (\d+) samples per point, timer slack \S+, [0-9.]+s (measured|interrupted)$`)
	timeoutRowRe     = regexp.MustCompile(`^(\S+)\s+(\S+)(\s+\S+){4}$`)
)

var mechanisms = []string{"epoll_wait", "epoll_pwait2", "ppoll", "pselect6", "epoll+timerfd"}

// TestTimeoutText checks the text output: the heading, the summary line and
// one row per mechanism and timeout, mechanism by mechanism, timeouts in the
// order asked.
func TestTimeoutText(t *testing.T) {
	bin := buildTimeout(t)
	code, stdout, stderr := run(t, bin, "-samples", "3", "-timeouts", "200us,20us")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; stdout:\n%s", code, stderr, stdout)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if want := "timeout: 5 mechanisms x 2 timeouts, 3 samples each"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if m := timeoutSummaryRe.FindStringSubmatch(lines[1]); m == nil || m[1] != "3" || m[2] != "measured" {
		t.Errorf("summary line %q, want %v with 3 samples, measured", lines[1], timeoutSummaryRe)
	}
	if f := strings.Fields(lines[2]); strings.Join(f, " ") != "mechanism requested min p50 p99 max" {
		t.Errorf("table heading %q", lines[2])
	}
	var got []string
	for _, l := range lines[3:] {
		if m := timeoutRowRe.FindStringSubmatch(l); m != nil && slices.Contains(mechanisms, m[1]) {
			got = append(got, m[1]+" "+m[2])
		}
	}
	var want []string
	for _, m := range mechanisms {
		want = append(want, m+" 200µs", m+" 20µs")
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q:\n%s", got, want, stdout)
	}
}

// TestTimeoutCSV checks the figures: every point has its samples, no
// mechanism ever wakes early (epoll_wait's 50µs becomes a whole
// millisecond), the quantiles are ordered, and with two samples the
// empirical quantiles pick samples (p50 the smaller, p99 the larger) as
// gonum's stat.Empirical does, rather than interpolating.
func TestTimeoutCSV(t *testing.T) {
	bin := buildTimeout(t)
	code, stdout, stderr := run(t, bin, "-samples", "2", "-timeouts", "50us,300us", "-slack", "1us", "-format", "csv")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; stdout:\n%s", code, stderr, stdout)
	}
	_, rows := parseCSV(t, stdout)
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 10:\n%s", len(rows), stdout)
	}
	for i, r := range rows {
		name := fmt.Sprintf("%s %sns", r["mechanism"], r["requested_ns"])
		if r["mechanism"] != mechanisms[i/2] || r["samples"] != "2" || r["timer_slack_ns"] != "1000" {
			t.Errorf("%s: row %v, want mechanism %s, 2 samples, timer slack 1000ns", name, r, mechanisms[i/2])
		}
		minV, p50, p99, maxV, mean := num(t, r, "min_ns"), num(t, r, "p50_ns"), num(t, r, "p99_ns"), num(t, r, "max_ns"), num(t, r, "mean_ns")
		if minV < 0 {
			t.Errorf("%s: woke %vns early", name, -minV)
		}
		if p50 != minV || p99 != maxV || mean < minV || mean > maxV {
			t.Errorf("%s: min %v p50 %v p99 %v max %v mean %v: want p50 = min and p99 = max of two samples", name, minV, p50, p99, maxV, mean)
		}
		if r["mechanism"] == "epoll_wait" && r["requested_ns"] == "50000" && minV < 950000 {
			t.Errorf("epoll_wait for 50µs overshot by only %vns; its millisecond rounding should add at least 950µs", minV)
		}
	}
}

// TestTimeoutInterrupt: SIGINT ends the run after the sample in progress;
// the table still prints, exit status 0.
func TestTimeoutInterrupt(t *testing.T) {
	bin := buildTimeout(t)
	cmd := exec.Command(bin, "-samples", "100000", "-timeouts", "1ms")
	lines, err := runUntil(t, cmd, 1, func() error { return cmd.Process.Signal(syscall.SIGINT) })
	if err != nil {
		t.Fatalf("after SIGINT: %v; output:\n%s", err, strings.Join(lines, "\n"))
	}
	if len(lines) < 2 || !strings.HasSuffix(lines[1], "interrupted") || len(lines) < 3+len(mechanisms) {
		t.Errorf("want a summary saying the run was interrupted and the table; output:\n%s", strings.Join(lines, "\n"))
	}
}

func TestTimeoutBadInput(t *testing.T) {
	bin := buildTimeout(t)
	const list = "want a comma-separated list of durations above 0 and at most 1s, such as 50us,1ms"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-timeouts", "0"}, "-timeouts 0: " + list},
		{[]string{"-timeouts", "50us,2s"}, "-timeouts 50us,2s: " + list},
		{[]string{"-timeouts", "fast"}, "-timeouts fast: " + list},
		{[]string{"-timeouts", ""}, "-timeouts : " + list},
		{[]string{"-mechanisms", "ppoll,kqueue"}, "-mechanisms kqueue: want epoll_wait, epoll_pwait2, ppoll, pselect6, epoll+timerfd"},
		{[]string{"-samples", "0"}, "-samples 0: want an integer from 1 to 100000"},
		{[]string{"-slack", "-1s"}, "-slack -1s: want a duration from 1ns to 1s such as 10s or 500ms (0 leaves the thread's timer slack as inherited)"},
		{[]string{"-format", "json"}, "-format json: want text or csv"},
		{[]string{"-d", "1s"}, "flag provided but not defined: -d"},
		{[]string{"stray"}, `unexpected argument "stray": yardstick-timeout takes flags only`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, bin, c.args...)
			if want := "yardstick-timeout: " + c.want + "\n"; code != 2 || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no output and %q", code, stdout, stderr, want)
			}
		})
	}
}
