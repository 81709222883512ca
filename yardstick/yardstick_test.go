package yardstick

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// build compiles c/yardstick.c into a temporary directory, or skips the test
// when there is no gcc.
func build(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skipf("gcc not found, cannot build the C yardstick: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "yardstick")
	out, err := exec.Command(gcc, "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread",
		"-o", bin, filepath.Join("c", "yardstick.c")).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// run starts the yardstick and returns its exit status and outputs; it
// never waits more than 30 s.
func run(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.Exited():
		code = exit.ExitCode()
	default:
		t.Fatalf("yardstick %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return code, out.String(), errb.String()
}

var (
	setupRe    = regexp.MustCompile(`^(\d+) pipes setup \((\w+), writer (\w+)\)$`)
	intervalRe = regexp.MustCompile(`^\d+ evts/sec [0-9.e+-]+ samples per call$`)
	medianRe   = regexp.MustCompile(`^evts/sec       median (\d+)  \(n=(\d+) intervals, (\d+) warm-up left out\)$`)
	timingRe   = regexp.MustCompile(`^setup          (\d+) pipes in [0-9.]+ ms$`)
	tokensRe   = regexp.MustCompile(`^tokens         sent (\d+)  received (\d+)  drained (\d+)  lost (-?\d+)$`)
)

// tokens are the figures of the accounting line.
type tokens struct{ sent, received, drained, lost int64 }

func parseTokens(t *testing.T, line string) tokens {
	t.Helper()
	m := tokensRe.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("accounting line %q does not match %v", line, tokensRe)
	}
	var v [4]int64
	for i := range v {
		v[i], _ = strconv.ParseInt(m[i+1], 10, 64)
	}
	return tokens{v[0], v[1], v[2], v[3]}
}

// checkTokens asserts that every token is accounted for and that no more
// than inFlight were left in the pipes.
func checkTokens(t *testing.T, tk tokens, inFlight int64) {
	t.Helper()
	if tk.lost != 0 || tk.sent != tk.received+tk.drained {
		t.Errorf("tokens %+v: want sent = received + drained and lost 0", tk)
	}
	if tk.received == 0 {
		t.Errorf("tokens %+v: nothing received", tk)
	}
	if tk.drained > inFlight {
		t.Errorf("tokens %+v: drained more than the %d in flight", tk, inFlight)
	}
}

func TestOutputAndAccounting(t *testing.T) {
	bin := build(t)
	cases := []struct {
		backend, writer string
		pipes, inFlight int
		extra           []string
	}{
		{"epoll", "self", 10, 1, nil},
		{"poll", "self", 100, 10, nil},
		// Read ends above 1024: select's bitmap must not stop at FD_SETSIZE.
		{"select", "self", 600, 10, nil},
		{"select", "self", 10, 3, []string{"-route", "next"}},
		{"epoll", "thread", 100, 10, nil},
		{"poll", "thread", 10, 1, nil},
		{"select", "thread", 50, 5, nil},
	}
	for _, c := range cases {
		args := append([]string{"-b", c.backend, "-writer", c.writer, "-n", strconv.Itoa(c.pipes),
			"-l", strconv.Itoa(c.inFlight), "-d", "300ms", "-i", "100ms"}, c.extra...)
		t.Run(strings.Join(args[:8], " "), func(t *testing.T) {
			code, stdout, stderr := run(t, bin, args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q; stdout:\n%s", code, stderr, stdout)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if len(lines) != 1+3+6 {
				t.Fatalf("got %d lines, want a setup line, 3 interval lines and 6 summary lines:\n%s", len(lines), stdout)
			}
			want := fmt.Sprintf("%d pipes setup (%s, writer %s)", c.pipes, c.backend, c.writer)
			if m := setupRe.FindStringSubmatch(lines[0]); m == nil || lines[0] != want {
				t.Errorf("setup line %q, want %q", lines[0], want)
			}
			for _, l := range lines[1:4] {
				if !intervalRe.MatchString(l) {
					t.Errorf("interval line %q does not match %v", l, intervalRe)
				}
			}
			head := fmt.Sprintf("--- yardstick: %s, %d pipes, %d tokens in flight, writer %s, measured ",
				c.backend, c.pipes, c.inFlight, c.writer)
			if !strings.HasPrefix(lines[4], head) {
				t.Errorf("summary line %q, want it to start with %q", lines[4], head)
			}
			if m := medianRe.FindStringSubmatch(lines[5]); m == nil || m[2] != "2" || m[3] != "1" {
				t.Errorf("median line %q: want %v with 2 intervals and 1 warm-up", lines[5], medianRe)
			}
			if m := timingRe.FindStringSubmatch(lines[8]); m == nil || m[1] != strconv.Itoa(c.pipes) {
				t.Errorf("setup timing line %q does not match %v for %d pipes", lines[8], timingRe, c.pipes)
			}
			checkTokens(t, parseTokens(t, lines[9]), int64(c.inFlight))
		})
	}
}

// TestInterrupt runs until SIGINT: the summary and the accounting still
// print and the exit status is 0.
func TestInterrupt(t *testing.T) {
	bin := build(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-b", "epoll", "-writer", "thread", "-n", "20", "-l", "4", "-d", "0", "-i", "50ms")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) == 3 { // the setup line and two intervals
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("yardstick after SIGINT: %v; output:\n%s", err, strings.Join(lines, "\n"))
	}
	if len(lines) < 6 || !strings.Contains(lines[len(lines)-6], "interrupted after") {
		t.Fatalf("want a summary saying the run was interrupted; output:\n%s", strings.Join(lines, "\n"))
	}
	checkTokens(t, parseTokens(t, lines[len(lines)-1]), 4)
}

func TestBadInput(t *testing.T) {
	bin := build(t)
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-n", "abc"}, "yardstick: -n abc: want an integer from 1 to 1000000"},
		{[]string{"-n", "0"}, "yardstick: -n 0: want an integer from 1 to 1000000"},
		{[]string{"-l", "0"}, "yardstick: -l 0: want an integer from 1 to 4096"},
		{[]string{"-b", "kqueue"}, "yardstick: -b kqueue: want epoll, poll or select"},
		{[]string{"-writer", "process"}, "yardstick: -writer process: want self or thread"},
		{[]string{"-d", "3"}, "yardstick: -d 3: want a duration such as 3s or 500ms"},
		{[]string{"-i", "5ms"}, "yardstick: -i: want an interval of at least 10ms"},
		{[]string{"-d", "1s", "-i", "2s"}, "yardstick: -i is longer than -d: want an interval no longer than the duration"},
		{[]string{"-x", "1"}, "yardstick: flag provided but not defined: -x"},
		{[]string{"-n"}, "yardstick: -n: flag needs an argument"},
		{[]string{"stray"}, `yardstick: unexpected argument "stray": yardstick takes flags only`},
	}
	if need := uint64(2*1000000 + 6); lim.Max < need {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"-n", "1000000"}, fmt.Sprintf("yardstick: -n 1000000: needs %d descriptors, the limit is %d: want fewer pipes or a higher hard limit", need, lim.Max)})
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, bin, c.args...)
			if code != 2 || stdout != "" || stderr != c.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no output and %q", code, stdout, stderr, c.want)
			}
		})
	}
}
