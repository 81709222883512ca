package yardstick

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func buildHerd(t *testing.T) string { return buildC(t, "herd", "yardstick-herd") }

// herdRowLabels are the figures of the summary table, in order: pipebench
// herd's.
var herdRowLabels = []string{
	"evts/sec (median)", "tokens/sec", "wake-ups per token", "returns per token",
	"wasted returns per token", "wasted reads per token", "waiters' sys CPU",
	"waiters' sys CPU per token", "waiters' user CPU per token", "writer's sys CPU per token",
}

var (
	herdReadyRe    = regexp.MustCompile(`^exclusive (off|on): (\d+) waiters ready in \d+ms$`)
	herdIntervalRe = regexp.MustCompile(`^exclusive (off|on): \d+ evts/sec [0-9.e+-]+ returns per token$`)
	herdTokensRe   = regexp.MustCompile(`^tokens, exclusive (off|on):\s+sent (\d+)  received (\d+)  drained (\d+)  lost (-?\d+)  \([0-9.]+s (measured|interrupted)\)$`)
)

// herdTokens parses the accounting lines of a herd run, by setting.
func herdTokens(t *testing.T, lines []string) map[string]tokens {
	t.Helper()
	got := map[string]tokens{}
	for _, l := range lines {
		m := herdTokensRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var v [4]int64
		for i := range v {
			v[i], _ = strconv.ParseInt(m[i+2], 10, 64)
		}
		got[m[1]] = tokens{v[0], v[1], v[2], v[3]}
	}
	return got
}

// checkHerdText checks a finished run's text output: the heading, each
// setting's ready line and intervals, the table and the accounting.
func checkHerdText(t *testing.T, stdout, shape string, settings []string, intervals int, inFlight int64) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	each := map[string]string{"off": "off", "on": "on", "off,on": "off, then on"}[strings.Join(settings, ",")]
	if want := fmt.Sprintf("herd: %s, EPOLLEXCLUSIVE %s, 300ms each", shape, each); lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	i := 1
	for _, s := range settings {
		if m := herdReadyRe.FindStringSubmatch(lines[i]); m == nil || m[1] != s {
			t.Fatalf("line %q, want setting %s's ready line (%v):\n%s", lines[i], s, herdReadyRe, stdout)
		}
		for k := 1; k <= intervals; k++ {
			if m := herdIntervalRe.FindStringSubmatch(lines[i+k]); m == nil || m[1] != s {
				t.Errorf("line %q, want interval %d of setting %s (%v)", lines[i+k], k, s, herdIntervalRe)
			}
		}
		i += 1 + intervals
	}
	if want := fmt.Sprintf("--- yardstick herd: %s, 300ms measured per setting", shape); lines[i] != want {
		t.Errorf("summary line %q, want %q", lines[i], want)
	}
	head := strings.Fields(lines[i+1])
	wantHead := append([]string{"EPOLLEXCLUSIVE"}, settings...)
	if len(settings) == 2 {
		wantHead = append(wantHead, "off/on")
	}
	if strings.Join(head, " ") != strings.Join(wantHead, " ") {
		t.Errorf("table heading %q, want the fields %q", lines[i+1], wantHead)
	}
	for k, label := range herdRowLabels {
		row := lines[i+2+k]
		if !strings.HasPrefix(row, label+" ") || len(strings.Fields(strings.TrimPrefix(row, label))) != len(wantHead)-1 {
			t.Errorf("table row %q, want %q and a figure per column", row, label)
		}
	}
	tk := herdTokens(t, lines)
	if len(tk) != len(settings) {
		t.Fatalf("%d accounting lines, want one per setting:\n%s", len(tk), stdout)
	}
	for s, v := range tk {
		t.Run(s, func(t *testing.T) { checkTokens(t, v, inFlight) })
	}
}

func TestHerdOutputAndAccounting(t *testing.T) {
	bin := buildHerd(t)
	cases := []struct {
		args     []string
		shape    string
		settings []string
		inFlight int64
	}{
		{[]string{"-waiters", "4", "-n", "20", "-l", "2"}, "4 waiter threads, 20 pipes, 2 tokens in flight", []string{"off", "on"}, 2},
		{[]string{"-waiters", "3", "-n", "10", "-mode", "processes"}, "3 waiter processes, 10 pipes, 1 tokens in flight", []string{"off", "on"}, 1},
		{[]string{"-waiters", "2", "-n", "600", "-l", "8", "-exclusive", "on"}, "2 waiter threads, 600 pipes, 8 tokens in flight", []string{"on"}, 8},
		{[]string{"-exclusive", "off", "-seed", "0"}, "8 waiter threads, 100 pipes, 1 tokens in flight", []string{"off"}, 1},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, bin, append(c.args, "-d", "300ms", "-i", "100ms")...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q; stdout:\n%s", code, stderr, stdout)
			}
			checkHerdText(t, stdout, c.shape, c.settings, 3, c.inFlight)
		})
	}
}

// parseCSV returns a CSV output's header and rows as maps by column.
func parseCSV(t *testing.T, out string) ([]string, []map[string]string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 1 {
		t.Fatalf("not CSV (%v):\n%s", err, out)
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		rows = append(rows, m)
	}
	return recs[0], rows
}

func num(t *testing.T, row map[string]string, col string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(row[col], 64)
	if err != nil {
		t.Fatalf("column %s: %q is not a number", col, row[col])
	}
	return v
}

// TestHerdCSV checks the figures of -format csv: one row per setting, the
// accounting, the usage that was measured, and with one waiter no herd at
// all (nobody else can take its tokens, so no read is ever wasted).
func TestHerdCSV(t *testing.T) {
	bin := buildHerd(t)
	for _, waiters := range []string{"1", "4"} {
		t.Run("waiters "+waiters, func(t *testing.T) {
			code, stdout, stderr := run(t, bin, "-waiters", waiters, "-n", "16", "-l", "3", "-d", "300ms", "-i", "100ms", "-format", "csv")
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q; stdout:\n%s", code, stderr, stdout)
			}
			_, rows := parseCSV(t, stdout)
			if len(rows) != 2 || rows[0]["exclusive"] != "off" || rows[1]["exclusive"] != "on" {
				t.Fatalf("rows %v, want off then on", rows)
			}
			for _, r := range rows {
				tk := tokens{int64(num(t, r, "sent")), int64(num(t, r, "received")), int64(num(t, r, "drained")), int64(num(t, r, "lost"))}
				checkTokens(t, tk, 3)
				if r["waiters"] != waiters || r["mode"] != "threads" || r["interrupted"] != "false" {
					t.Errorf("row %v: want %s waiters, threads, not interrupted", r, waiters)
				}
				if num(t, r, "evts_per_sec_median") <= 0 || num(t, r, "tokens_per_sec") <= 0 || num(t, r, "returns_per_token") <= 0 {
					t.Errorf("row %v: want positive rates", r)
				}
				// getrusage splits a thread's run time between user and
				// system; their sum is its run time, never 0.
				if num(t, r, "sys_ns_per_token")+num(t, r, "user_ns_per_token") <= 0 || num(t, r, "wakeups_per_token") <= 0 {
					t.Errorf("row %v: want the waiters' CPU time and wake-ups counted", r)
				}
				if min, max := num(t, r, "min_waiter_tokens"), num(t, r, "max_waiter_tokens"); min > max || max > num(t, r, "received") {
					t.Errorf("row %v: tokens per waiter %v..%v out of order", r, min, max)
				}
				if waiters == "1" && (num(t, r, "wasted_reads_per_token") != 0 || num(t, r, "wasted_returns_per_token") != 0) {
					t.Errorf("row %v: one waiter wasted a read", r)
				}
			}
		})
	}
}

// TestHerdInterrupt: SIGINT ends the setting being measured, skips the
// rest, and the summary and accounting still print, exit status 0.
func TestHerdInterrupt(t *testing.T) {
	bin := buildHerd(t)
	for _, mode := range []string{"threads", "processes"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(bin, "-mode", mode, "-waiters", "3", "-n", "10", "-l", "2", "-d", "1h", "-i", "50ms")
			lines, err := runUntil(t, cmd, 4, func() error { return cmd.Process.Signal(syscall.SIGINT) })
			if err != nil {
				t.Fatalf("after SIGINT: %v; output:\n%s", err, strings.Join(lines, "\n"))
			}
			tk := herdTokens(t, lines)
			last := lastLine(lines, "tokens, exclusive")
			if len(tk) != 1 || !strings.HasPrefix(last, "tokens, exclusive off:") || !strings.HasSuffix(last, "interrupted)") {
				t.Fatalf("want one setting, off, interrupted; output:\n%s", strings.Join(lines, "\n"))
			}
			checkTokens(t, tk["off"], 2)
		})
	}
}

// TestHerdWaiterProcessDies kills a waiter process during a run: the run
// ends with one line naming it, exit status 1, never a hang.
func TestHerdWaiterProcessDies(t *testing.T) {
	bin := buildHerd(t)
	cmd := exec.Command(bin, "-mode", "processes", "-waiters", "3", "-n", "10", "-d", "1h", "-i", "50ms")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	var victim int
	lines, err := runUntil(t, cmd, 3, func() error {
		kids := childrenOf(t, cmd.Process.Pid)
		if len(kids) != 3 {
			return fmt.Errorf("want 3 waiter processes, found %v", kids)
		}
		victim = kids[1]
		return unix.Kill(victim, unix.SIGKILL)
	})
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("after a waiter's death: %v, want exit status 1; output:\n%s", err, strings.Join(lines, "\n"))
	}
	want := fmt.Sprintf("yardstick-herd: EPOLLEXCLUSIVE off: waiter process %d was killed by signal 9 (Killed)\n", victim)
	if errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}

// TestHerdDescriptorPlan runs the most pipes the plan allows under a limit
// of 200, and one more, refused before any pipe is made. The plan is
// exact: one pipe more would fail while making pipes, not at the check.
func TestHerdDescriptorPlan(t *testing.T) {
	bin := buildHerd(t)
	const limit = 200
	for _, c := range []struct {
		mode       string
		most, need int
	}{
		// stdio, both ends of every pipe, the stop and credit pipes, and
		// in threads mode an epoll descriptor per waiter
		{"threads", 94, 3 + 2*95 + 4 + 4},
		// forked waiters hold their own epoll descriptors
		{"processes", 96, 3 + 2*97 + 4},
	} {
		t.Run(c.mode, func(t *testing.T) {
			args := []string{"-mode", c.mode, "-waiters", "4", "-l", "4", "-d", "300ms", "-i", "100ms"}
			code, stdout, stderr := runLimited(t, limit, bin, append(args, "-n", strconv.Itoa(c.most))...)
			if code != 0 || stderr != "" {
				t.Fatalf("-n %d under a limit of %d: exit %d, stderr %q; stdout:\n%s", c.most, limit, code, stderr, stdout)
			}
			code, stdout, stderr = runLimited(t, limit, bin, append(args, "-n", strconv.Itoa(c.most+1))...)
			want := fmt.Sprintf("yardstick-herd: -n %d with -waiters 4 (%s) needs %d descriptors in one process, limit is %d (RLIMIT_NOFILE hard limit): use fewer pipes or waiters\n",
				c.most+1, c.mode, c.need, limit)
			if code != 2 || stdout != "" || stderr != want {
				t.Errorf("-n %d: exit %d, stdout %q, stderr %q; want exit 2, no output and %q", c.most+1, code, stdout, stderr, want)
			}
		})
	}
}

func TestHerdBadInput(t *testing.T) {
	bin := buildHerd(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-waiters", "0"}, "-waiters 0: want an integer from 1 to 1024"},
		{[]string{"-waiters", "1025"}, "-waiters 1025: want an integer from 1 to 1024"},
		{[]string{"-n", "x"}, "-n x: want an integer from 1 to 1000000"},
		{[]string{"-l", "0"}, "-l 0: want an integer from 1 to 4096"},
		{[]string{"-mode", "fork"}, "-mode fork: want threads or processes"},
		{[]string{"-exclusive", "maybe"}, "-exclusive maybe: want both, off or on"},
		{[]string{"-d", "5ms"}, "-d 5ms: want a duration from 10ms to 1h such as 10s or 500ms"},
		{[]string{"-i", "2h"}, "-i 2h: want a duration from 10ms to 1h such as 10s or 500ms"},
		{[]string{"-d", "1s", "-i", "2s"}, "-i 2s is longer than -d 1s: want an interval no longer than the duration"},
		{[]string{"-seed", "-1"}, "-seed -1: want an integer from 0 to 18446744073709551615"},
		{[]string{"-format", "json"}, "-format json: want text or csv"},
		{[]string{"-x", "1"}, "flag provided but not defined: -x"},
		{[]string{"-n"}, "-n: flag needs an argument"},
		{[]string{"stray"}, `unexpected argument "stray": yardstick-herd takes flags only`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, bin, c.args...)
			if want := "yardstick-herd: " + c.want + "\n"; code != 2 || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no output and %q", code, stdout, stderr, want)
			}
		})
	}
}
