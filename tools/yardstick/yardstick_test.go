package yardstick

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMain marks every descriptor this test inherited close-on-exec, so
// that the programs it starts hold stdio and what they open, nothing more:
// the descriptor budgets below are exact.
func TestMain(m *testing.M) {
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, e := range ents {
			if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
				unix.CloseOnExec(fd)
			}
		}
	}
	os.Exit(m.Run())
}

// build compiles c/yardstick.c into a temporary directory, or skips the test
// when there is no gcc.
func build(t *testing.T) string { return buildC(t, "yardstick", "yardstick") }

// buildC compiles c/src.c into a temporary directory as bin, or skips the
// test when there is no gcc.
func buildC(t *testing.T, src, bin string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skipf("gcc not found, cannot build the C program c/%s.c: %v", src, err)
	}
	path := filepath.Join(t.TempDir(), bin)
	out, err := exec.Command(gcc, "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread",
		"-o", path, filepath.Join("c", src+".c")).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return path
}

// run starts the yardstick and returns its exit status and outputs; it
// never waits more than 30 s.
func run(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCmd(t, exec.Command(bin, args...))
}

// runLimited runs the yardstick with RLIMIT_NOFILE (soft and hard) set to
// limit by the shell, so that descriptor budgets can be tested whatever the
// machine's limit.
func runLimited(t *testing.T, limit int, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	script := fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, limit)
	return runCmd(t, exec.Command("sh", append([]string{"-c", script, bin}, args...)...))
}

func runCmd(t *testing.T, cmd *exec.Cmd) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.Exited():
		code = exit.ExitCode()
	default:
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, errb.String())
	}
	return code, out.String(), errb.String()
}

// skipIfNoUring skips a uring test when this kernel refuses io_uring, with
// the yardstick's own reason.
func skipIfNoUring(t *testing.T, code int, stderr string) {
	t.Helper()
	if b, err := os.ReadFile("/proc/sys/kernel/io_uring_disabled"); err == nil && strings.TrimSpace(string(b)) == "2" {
		t.Skip("io_uring is disabled on this machine (/proc/sys/kernel/io_uring_disabled = 2)")
	}
	if code == 2 && strings.HasPrefix(stderr, "yardstick: -b uring: ") {
		t.Skipf("the kernel refuses io_uring: %s", strings.TrimSpace(stderr))
	}
}

var (
	setupRe    = regexp.MustCompile(`^(\d+) pipes setup \(([\w-]+), writer (\w+)\)$`)
	intervalRe = regexp.MustCompile(`^\d+ evts/sec [0-9.e+-]+ samples per call$`)
	medianRe   = regexp.MustCompile(`^evts/sec       median (\d+)  \(n=(\d+) intervals, (\d+) warm-up left out\)$`)
	perEventRe = regexp.MustCompile(`^per event      calls [0-9.e+-]+  reads [0-9.e+-]+  writes ([0-9.e+-]+)(  full [0-9.e+-]+)?$`)
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
// than inFlight were left in the pipes (inFlight 0: unbounded, no bound).
func checkTokens(t *testing.T, tk tokens, inFlight int64) {
	t.Helper()
	if tk.lost != 0 || tk.sent != tk.received+tk.drained {
		t.Errorf("tokens %+v: want sent = received + drained and lost 0", tk)
	}
	if tk.received == 0 {
		t.Errorf("tokens %+v: nothing received", tk)
	}
	if inFlight > 0 && tk.drained > inFlight {
		t.Errorf("tokens %+v: drained more than the %d in flight", tk, inFlight)
	}
}

// checkRun checks a finished 300 ms run's output: the setup line, three
// intervals, the summary and the accounting.
func checkRun(t *testing.T, stdout, backend, writer string, pipes, inFlight int, extra []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	// the scheduler's figures: the reader's, a writer's, and the CPUs'
	// halts
	threads := 1
	if writer != "self" {
		threads++
	}
	sched := threads + 1
	summary := 7 + sched // the last line says how the system calls were made
	if writer != "self" && inFlight > 0 {
		summary++ // how the writer waits for credits
	}
	if len(lines) != 1+3+summary {
		t.Fatalf("got %d lines, want a setup line, 3 interval lines and %d summary lines:\n%s", len(lines), summary, stdout)
	}
	want := fmt.Sprintf("%d pipes setup (%s, writer %s)", pipes, backend, writer)
	if m := setupRe.FindStringSubmatch(lines[0]); m == nil || lines[0] != want {
		t.Errorf("setup line %q, want %q", lines[0], want)
	}
	for _, l := range lines[1:4] {
		if !intervalRe.MatchString(l) {
			t.Errorf("interval line %q does not match %v", l, intervalRe)
		}
	}
	flight := strconv.Itoa(inFlight)
	if inFlight == 0 {
		flight = "unbounded"
	}
	head := fmt.Sprintf("--- yardstick: %s, %d pipes, %s tokens in flight, writer %s, measured ", backend, pipes, flight, writer)
	if !strings.HasPrefix(lines[4], head) {
		t.Errorf("summary line %q, want it to start with %q", lines[4], head)
	}
	if m := medianRe.FindStringSubmatch(lines[5]); m == nil || m[2] != "2" || m[3] != "1" {
		t.Errorf("median line %q: want %v with 2 intervals and 1 warm-up", lines[5], medianRe)
	}
	m := perEventRe.FindStringSubmatch(lines[7])
	switch {
	case m == nil:
		t.Errorf("per-event line %q does not match %v", lines[7], perEventRe)
	case (m[2] != "") != (inFlight == 0):
		t.Errorf("per-event line %q: want a full count with -l 0 and only then", lines[7])
	default:
		// The writer's tokens are writes too: at least one per event
		// with a separate writer (one token per read at most, and its
		// credit word or its failed writes).
		w, _ := strconv.ParseFloat(m[1], 64)
		if writer != "self" && inFlight > 0 && w < 1 {
			t.Errorf("per-event line %q: want the writer's writes counted (at least 1 per event)", lines[7])
		}
	}
	for k, who := range []string{"reader", "writer"}[:threads] {
		if m := schedRe.FindStringSubmatch(lines[8+k]); m == nil || m[1] != who {
			t.Errorf("sched line %q: want the %s thread's, matching %v", lines[8+k], who, schedRe)
		}
	}
	if !haltsRe.MatchString(lines[8+threads]) {
		t.Errorf("sched line %q: want the CPUs' halts, matching %v", lines[8+threads], haltsRe)
	}
	if m := timingRe.FindStringSubmatch(lines[8+sched]); m == nil || m[1] != strconv.Itoa(pipes) {
		t.Errorf("setup timing line %q does not match %v for %d pipes", lines[8+sched], timingRe, pipes)
	}
	checkTokens(t, parseTokens(t, lines[9+sched]), int64(inFlight))
	// How the writer waits for credits, as pipebench's does by default.
	wantWait := ""
	switch {
	case inFlight == 0 || writer == "self":
	case slices.Contains(extra, "-credit-wait") || slices.Contains(extra, "-writer-threads"):
		return // TestCreditWait checks these
	case writer == "thread":
		wantWait = "writer waits   in ppoll, then reads, for credits"
	case writer == "process":
		wantWait = "writer waits   in read for credits in a process of 2 threads"
	}
	var got string
	if len(lines) > 11+sched {
		got = lines[10+sched]
	}
	if got != wantWait {
		t.Errorf("writer wait line %q, want %q", got, wantWait)
	}
	if last := lines[len(lines)-1]; last != callsFunction {
		t.Errorf("last line %q, want %q", last, callsFunction)
	}
}

// callsFunction is the last line of a run that makes its system calls as
// a Go program must (-calls function, the default).
const callsFunction = "calls          each system call made by a function that returns to the loop (-calls function)"

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
		// Edge-triggered: one pipe, so that every forwarded token lands in
		// the pipe being drained; the drain must still end.
		{"epoll-et", "self", 1, 10, nil},
		{"epoll-et", "self", 100, 10, []string{"-route", "next"}},
		{"epoll-et", "thread", 50, 5, nil},
		{"epoll", "process", 100, 10, nil},
		{"poll", "process", 10, 1, nil},
		{"select", "process", 600, 10, nil},
		{"epoll-et", "process", 50, 4, nil},
		// Unbounded writers: the pipes fill and their writes count as full.
		{"epoll", "thread", 10, 0, nil},
		{"poll", "process", 100, 0, nil},
		{"select", "thread", 50, 0, nil},
		{"epoll-et", "process", 10, 0, nil},
		{"uring", "self", 1, 10, nil},
		{"uring", "self", 100, 10, nil},
		{"uring", "thread", 10, 1, nil},
		{"uring", "process", 100, 10, nil},
		{"uring", "thread", 10, 0, nil},
		{"uring", "process", 100, 0, nil},
	}
	for _, c := range cases {
		args := append([]string{"-b", c.backend, "-writer", c.writer, "-n", strconv.Itoa(c.pipes),
			"-l", strconv.Itoa(c.inFlight), "-d", "300ms", "-i", "100ms"}, c.extra...)
		t.Run(strings.Join(append(args[:8:8], c.extra...), " "), func(t *testing.T) {
			code, stdout, stderr := run(t, bin, args...)
			if c.backend == "uring" {
				skipIfNoUring(t, code, stderr)
			}
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q; stdout:\n%s", code, stderr, stdout)
			}
			checkRun(t, stdout, c.backend, c.writer, c.pipes, c.inFlight, c.extra)
		})
	}
}

// TestInterrupt runs until SIGINT: the summary and the accounting still
// print and the exit status is 0. The writer process, in its own process
// group, is stopped in order.
func TestInterrupt(t *testing.T) {
	bin := build(t)
	for _, writer := range []string{"thread", "process"} {
		t.Run(writer, func(t *testing.T) {
			cmd := exec.Command(bin, "-b", "epoll", "-writer", writer, "-n", "20", "-l", "4", "-d", "0", "-i", "50ms")
			lines, err := runUntil(t, cmd, 3, func() error { return cmd.Process.Signal(syscall.SIGINT) })
			if err != nil {
				t.Fatalf("yardstick after SIGINT: %v; output:\n%s", err, strings.Join(lines, "\n"))
			}
			if !strings.Contains(lastLine(lines, "--- yardstick:"), "interrupted after") {
				t.Fatalf("want a summary saying the run was interrupted; output:\n%s", strings.Join(lines, "\n"))
			}
			checkTokens(t, parseTokens(t, lastLine(lines, "tokens ")), 4)
		})
	}
}

// runUntil starts cmd, calls act once it has printed after lines (the setup
// line and some intervals), and returns every line and the exit error.
func runUntil(t *testing.T, cmd *exec.Cmd, after int, act func() error) ([]string, error) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	sc := bufio.NewScanner(stdout)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) == after {
			if err := act(); err != nil {
				_ = cmd.Process.Kill()
				t.Fatal(err)
			}
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
	return lines, cmd.Wait()
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var kids []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			kids = append(kids, p)
		}
	}
	return kids
}

func countFDs(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("count descriptors of %d: %v", pid, err)
	}
	return len(ents)
}

// TestProcessHoldsItsEnds checks that, with a writer process, the reader
// holds the read ends and the writer the write ends: about N descriptors
// each, where one process would hold 2N.
func TestProcessHoldsItsEnds(t *testing.T) {
	bin := build(t)
	const pipes = 600
	cmd := exec.Command(bin, "-b", "epoll", "-writer", "process", "-n", strconv.Itoa(pipes), "-l", "10", "-d", "500ms", "-i", "100ms")
	var reader, writer int
	lines, err := runUntil(t, cmd, 2, func() error {
		kids := childrenOf(t, cmd.Process.Pid)
		if len(kids) != 1 {
			return fmt.Errorf("yardstick %d has %d child processes %v, want one writer process", cmd.Process.Pid, len(kids), kids)
		}
		reader, writer = countFDs(t, cmd.Process.Pid), countFDs(t, kids[0])
		return nil
	})
	if err != nil {
		t.Fatalf("yardstick: %v; output:\n%s", err, strings.Join(lines, "\n"))
	}
	// The reader: stdio, epoll, the credit pipe's write end, the control
	// socket and the read ends; the writer: stdio, the credit pipe's read
	// end, the control socket and the write ends.
	if reader != pipes+6 || writer != pipes+5 {
		t.Errorf("the reader holds %d descriptors and the writer process %d, want %d and %d", reader, writer, pipes+6, pipes+5)
	}
	checkTokens(t, parseTokens(t, lastLine(lines, "tokens ")), 10)
}

// TestDescriptorBudget runs each writer mode at the most pipes its
// descriptor plan allows under a limit of 1000, and one more, which is
// refused before any pipe is made. The plan is exact: one pipe more than
// it allows would fail while making pipes, not at the check.
func TestDescriptorBudget(t *testing.T) {
	bin := build(t)
	const limit = 1000
	const refuse = "yardstick: -n %d with -writer %s needs %d descriptors in one process, the limit is %d: want -n %d or fewer%s, or a higher hard limit\n"
	const remedy = ", -writer process (each process then holds about -n descriptors)"
	cases := []struct {
		writer, backend string
		most, need      int // the most pipes that fit; what one more needs
		remedy          string
	}{
		// stdio, epoll, both ends of every pipe
		{"self", "epoll", 498, 3 + 1 + 2*499, remedy},
		// and the credit pipe; poll holds no descriptor of its own
		{"thread", "poll", 497, 3 + 2 + 2*498, remedy},
		// the reader: stdio, epoll, the credit pipe's write end, the
		// control socket, the read ends and a batch of 250 write ends on
		// their way to the writer
		{"process", "epoll", 744, 3 + 1 + 2 + 745 + 250, ""},
	}
	for _, c := range cases {
		t.Run(c.writer, func(t *testing.T) {
			args := []string{"-b", c.backend, "-writer", c.writer, "-l", "4", "-d", "300ms", "-i", "100ms"}
			code, stdout, stderr := runLimited(t, limit, bin, append(args, "-n", strconv.Itoa(c.most))...)
			if code != 0 || stderr != "" {
				t.Fatalf("-n %d under a limit of %d: exit %d, stderr %q; stdout:\n%s", c.most, limit, code, stderr, stdout)
			}
			checkRun(t, stdout, c.backend, c.writer, c.most, 4, nil)
			code, stdout, stderr = runLimited(t, limit, bin, append(args, "-n", strconv.Itoa(c.most+1))...)
			want := fmt.Sprintf(refuse, c.most+1, c.writer, c.need, limit, c.most, c.remedy)
			if code != 2 || stdout != "" || stderr != want {
				t.Errorf("-n %d: exit %d, stdout %q, stderr %q; want exit 2, no output and %q", c.most+1, code, stdout, stderr, want)
			}
		})
	}
}

// TestWriterProcessDies kills the writer process during a run: the reader
// stops and says how the writer ended. Killing the reader takes the writer
// with it.
func TestWriterProcessDies(t *testing.T) {
	bin := build(t)
	t.Run("writer killed", func(t *testing.T) {
		cmd := exec.Command(bin, "-b", "epoll", "-writer", "process", "-n", "20", "-l", "4", "-d", "0", "-i", "50ms")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		lines, err := runUntil(t, cmd, 2, func() error {
			kids := childrenOf(t, cmd.Process.Pid)
			if len(kids) != 1 {
				return fmt.Errorf("want one writer process, found %v", kids)
			}
			return unix.Kill(kids[0], unix.SIGKILL)
		})
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("yardstick after its writer's death: %v, want exit status 1; output:\n%s", err, strings.Join(lines, "\n"))
		}
		msg := errb.String()
		if strings.Count(msg, "\n") != 1 || !regexp.MustCompile(`^yardstick: writer process \d+ killed by signal 9 \(Killed\)`).MatchString(msg) {
			t.Errorf("stderr %q: want one line naming the writer process's death", msg)
		}
		if last := lastLine(lines, "tokens "); !strings.HasPrefix(last, "tokens         sent unknown") {
			t.Errorf("accounting line %q: want the sent count unknown", last)
		}
	})
	t.Run("reader killed", func(t *testing.T) {
		cmd := exec.Command(bin, "-b", "epoll", "-writer", "process", "-n", "20", "-l", "4", "-d", "0", "-i", "50ms")
		var kid int
		_, _ = runUntil(t, cmd, 2, func() error {
			kids := childrenOf(t, cmd.Process.Pid)
			if len(kids) != 1 {
				return fmt.Errorf("want one writer process, found %v", kids)
			}
			kid = kids[0]
			return cmd.Process.Kill()
		})
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", kid))
			s := string(b)
			if err != nil || strings.HasPrefix(strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0], "Z") {
				break // gone, or a zombie waiting for its reaper
			}
			if time.Now().After(deadline) {
				t.Fatalf("writer process %d still runs 5 s after its reader was killed", kid)
			}
		}
	})
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
		{[]string{"-l", "-1"}, "yardstick: -l -1: want an integer from 0 to 4096"},
		{[]string{"-l", "4097"}, "yardstick: -l 4097: want an integer from 0 to 4096"},
		{[]string{"-l", "0", "-writer", "self"}, "yardstick: -l 0 (unbounded) needs a separate writer: use -writer thread or process"},
		{[]string{"-b", "kqueue"}, "yardstick: -b kqueue: want epoll, epoll-et, poll, select or uring"},
		{[]string{"-writer", "auto"}, "yardstick: -writer auto: want self, thread or process"},
		{[]string{"-d", "3"}, "yardstick: -d 3: want a duration such as 3s or 500ms"},
		{[]string{"-i", "5ms"}, "yardstick: -i: want an interval of at least 10ms"},
		{[]string{"-d", "1s", "-i", "2s"}, "yardstick: -i is longer than -d: want an interval no longer than the duration"},
		{[]string{"-calls", "asm"}, "yardstick: -calls asm: want function, inline or go"},
		{[]string{"-x", "1"}, "yardstick: flag provided but not defined: -x"},
		{[]string{"-n"}, "yardstick: -n: flag needs an argument"},
		{[]string{"stray"}, `yardstick: unexpected argument "stray": yardstick takes flags only`},
	}
	// Past any limit a machine has: the message names the numbers and the
	// remedy (the default writer is thread; stdio, epoll, the credit pipe).
	if need := uint64(3 + 1 + 2 + 2*1000000); lim.Max < need {
		most := (lim.Max - 6) / 2
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"-n", "1000000"}, fmt.Sprintf("yardstick: -n 1000000 with -writer thread needs %d descriptors in one process, the limit is %d: want -n %d or fewer, -writer process (each process then holds about -n descriptors), or a higher hard limit", need, lim.Max, most)})
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

// TestCompareList checks compare.sh's default table and filters without
// measuring anything (-list takes no lock and builds nothing).
func TestCompareList(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("bash not found: %v", err)
	}
	list := func(args ...string) (int, []string, string) {
		cmd := exec.Command(bash, append([]string{"compare.sh", "-list"}, args...)...)
		cmd.Env = append(os.Environ(), "REPS=3", "DUR=3s", "QUIET=30", "TASKSET=")
		code, stdout, stderr := runCmd(t, cmd)
		return code, strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"), stderr
	}
	code, lines, stderr := list()
	if code != 0 || len(lines) != 121 {
		t.Fatalf("compare.sh -list: exit %d, %d lines, stderr %q; want 120 rows and the estimate", code, len(lines), stderr)
	}
	if want := "120 rows x 3 runs x 2 programs x 3s: expected about 52 min"; !strings.HasPrefix(lines[120], want) {
		t.Errorf("estimate %q, want it to start with %q", lines[120], want)
	}
	seen := map[string]bool{}
	for _, l := range lines[:120] {
		if seen[l] {
			t.Errorf("row %q listed twice", l)
		}
		seen[l] = true
	}
	for _, row := range []string{
		"-b epoll -n 9996 -l 0 -writer process",
		"-b poll -n 10 -l 1 -writer self",
		"-b uring -n 1000 -l 10 -writer thread",
		"-b select -n 10 -l 0 -writer process",
		"-b epoll-et -n 1000 -l 1 -writer self",
		"taskset=0 -b poll -n 1000 -l 0 -writer process",
	} {
		if !seen[row] {
			t.Errorf("the default table lacks %q", row)
		}
	}
	for _, row := range []string{"-b epoll -n 10 -l 0 -writer self", "-b uring -n 9996 -l 1 -writer thread", "taskset=0 -b epoll -n 10 -l 1 -writer self"} {
		if seen[row] {
			t.Errorf("the default table has %q", row)
		}
	}
	code, lines, _ = list("-b", "uring,epoll-et", "-writer", "process", "-l", "0", "-taskset", "no")
	want := []string{"-b epoll-et -n 10 -l 0 -writer process", "-b epoll-et -n 1000 -l 0 -writer process",
		"-b uring -n 10 -l 0 -writer process", "-b uring -n 1000 -l 0 -writer process"}
	if code != 0 || len(lines) != len(want)+1 || strings.Join(lines[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Errorf("filtered list: exit %d, lines %q; want %q and the estimate", code, lines, want)
	}
	if code, _, stderr := list("-b", "kqueue"); code != 2 || stderr != "compare.sh: no configuration matches the filters\n" {
		t.Errorf("-b kqueue: exit %d, stderr %q; want exit 2 and one line", code, stderr)
	}
	if code, lines, _ := list("taskset=1 -b poll -n 5 -l 2 -writer thread", "-taskset", "yes"); code != 0 || lines[0] != "taskset=1 -b poll -n 5 -l 2 -writer thread" {
		t.Errorf("a configuration given: exit %d, lines %q", code, lines)
	}
	// AA=1 (the yardstick against itself) and AA=inline (its inline calls
	// against itself) list the same rows; any other value is refused before
	// anything is built or measured.
	for _, aa := range []string{"1", "0", "inline"} {
		cmd := exec.Command(bash, "compare.sh", "-list", "-b", "poll", "-n", "10", "-l", "1")
		cmd.Env = append(os.Environ(), "AA="+aa)
		if code, stdout, stderr := runCmd(t, cmd); code != 0 || !strings.HasPrefix(stdout, "-b poll -n 10 -l 1 -writer self\n") {
			t.Errorf("AA=%s -list: exit %d, stdout %q, stderr %q", aa, code, stdout, stderr)
		}
	}
	// DUR must give pipebench two whole intervals or more.
	for _, dur := range []string{"1s", "2500ms", "500ms", "soon"} {
		cmd := exec.Command(bash, "compare.sh", "-list")
		cmd.Env = append(os.Environ(), "DUR="+dur)
		want := "compare.sh: DUR=" + dur + ": want whole seconds, 2s or more (pipebench's 1 s intervals, the first a warm-up)\n"
		if code, _, stderr := runCmd(t, cmd); code != 2 || stderr != want {
			t.Errorf("DUR=%s: exit %d, stderr %q; want exit 2 and %q", dur, code, stderr, want)
		}
	}
	ok := exec.Command(bash, "compare.sh", "-list", "-b", "poll", "-n", "10", "-l", "1")
	ok.Env = append(os.Environ(), "DUR=2s")
	if code, stdout, stderr := runCmd(t, ok); code != 0 || !strings.Contains(stdout, "x 2s: expected about") {
		t.Errorf("DUR=2s -list: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	cmd := exec.Command(bash, "compare.sh", "-list")
	cmd.Env = append(os.Environ(), "AA=yes")
	if code, _, stderr := runCmd(t, cmd); code != 2 || stderr != "compare.sh: AA=yes: want 0, 1 or inline\n" {
		t.Errorf("AA=yes: exit %d, stderr %q; want exit 2 and one line", code, stderr)
	}
}

// TestSlowerShare checks the "slower" column of compare.sh: the share of
// the pairs of runs in which pipebench's run was the slower, ties half.
func TestSlowerShare(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("bash not found: %v", err)
	}
	for _, c := range []struct{ args, want string }{
		{"1 2 3 -- 4 5 6", "1.0000"},                               // every pipebench run slower
		{"4 5 6 -- 1 2 3", "0.0000"},                               // every one faster
		{"1 4 -- 2 3", "0.5000"},                                   // (1,2) (1,3) slower; (4,2) (4,3) not
		{"5 5 -- 5 5", "0.5000"},                                   // ties count half
		{"100 300 200 -- 250 150 400", "0.6667"},                   // 6 of 9 pairs
		{"212384 220073 174301 -- 223470 249744 242066", "1.0000"}, // whole figures, as compare.sh gives them
	} {
		cmd := exec.Command(bash, "-c", "source compare-lib.sh && slower_share "+c.args)
		if code, stdout, stderr := runCmd(t, cmd); code != 0 || stdout != c.want+"\n" || stderr != "" {
			t.Errorf("slower_share %s: exit %d, %q, stderr %q; want %s", c.args, code, stdout, stderr, c.want)
		}
	}
	cmd := exec.Command(bash, "-c", "source compare-lib.sh && slower_share 1 2 --")
	if code, stdout, _ := runCmd(t, cmd); code == 0 {
		t.Errorf("slower_share with no C runs: exit 0, %q; want a failure", stdout)
	}
}

// TestTableSummary checks compare.sh's whole-table line: the median of the
// rows' ratios, the rows clearly slower and clearly faster, and what two
// equally fast programs reach by chance (a row clearly one way in 5% of
// tables; the binomial's 99th percentile over the rows).
func TestTableSummary(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("bash not found: %v", err)
	}
	rows := func(lines ...string) string { return strings.Join(lines, "\n") + "\n" }
	var many []string
	for i := range 114 { // compare.sh's table here: 114 rows, 9 clearly slower, 1 clearly faster
		switch {
		case i < 9:
			many = append(many, "0.930 1.0000")
		case i == 9:
			many = append(many, "1.060 0.0000")
		default:
			many = append(many, fmt.Sprintf("%.3f 0.5000", 0.96+float64(i%3)/100)) // 0.96, 0.97, 0.98
		}
	}
	for _, c := range []struct{ in, want string }{
		{rows("0.9 1.0000", "1.1 0.0000", "0.95 0.5000"),
			"median ratio 0.950; rows with pipebench clearly slower 1, clearly faster 1 (two equally fast programs: about 0 each way, more than 1 in under 1% of tables)"},
		{rows("1.2 0.5", "0.8 0.9", "1.0 0.95", "0.9 0.08"), // an even count: the mean of the middle two
			"median ratio 0.950; rows with pipebench clearly slower 1, clearly faster 1 (two equally fast programs: about 0 each way, more than 2 in under 1% of tables)"},
		{rows(many...),
			"median ratio 0.970; rows with pipebench clearly slower 9, clearly faster 1 (two equally fast programs: about 6 each way, more than 12 in under 1% of tables)"},
	} {
		cmd := exec.Command(bash, "-c", "source compare-lib.sh && table_summary 0.9188 pipebench")
		cmd.Stdin = strings.NewReader(c.in)
		if code, stdout, stderr := runCmd(t, cmd); code != 0 || stdout != "# whole table: "+c.want+"\n" || stderr != "" {
			t.Errorf("table_summary of %q: exit %d, %q, stderr %q; want %q", c.in, code, stdout, stderr, c.want)
		}
	}
	// With REPS=2 or 1 the share cannot reach the threshold (above 1):
	// the line says so rather than count against a chance it cannot have.
	few := exec.Command(bash, "-c", "source compare-lib.sh && table_summary 1.03 pipebench")
	few.Stdin = strings.NewReader(rows("0.9 1.0000", "1.0 0.5000"))
	if code, stdout, _ := runCmd(t, few); code != 0 || stdout != "# whole table: median ratio 0.950; no row can be clearly slower or faster with so few runs (REPS=3 or more)\n" {
		t.Errorf("table_summary with a threshold above 1: exit %d, %q", code, stdout)
	}
	cmd := exec.Command(bash, "-c", "source compare-lib.sh && table_summary 0.9188 pipebench </dev/null")
	if code, stdout, _ := runCmd(t, cmd); code == 0 {
		t.Errorf("table_summary of no rows: exit 0, %q; want a failure", stdout)
	}
}

// TestCreditWait: the writer's wait for credits, pipebench's by default
// (checkRun), and the others the yardstick offers to measure what
// pipebench's choice costs: the line says which ran, and the run accounts
// for its tokens.
func TestCreditWait(t *testing.T) {
	bin := build(t)
	for _, c := range []struct {
		writer string
		flags  []string
		want   string
	}{
		{"thread", []string{"-credit-wait", "read"}, "writer waits   in read for credits"},
		{"thread", []string{"-credit-wait", "ppoll"}, "writer waits   in ppoll, then reads, for credits"},
		{"process", []string{"-credit-wait", "ppoll", "-writer-threads", "1"}, "writer waits   in ppoll, then reads, for credits in a process of 1 thread"},
		{"process", []string{"-writer-threads", "3"}, "writer waits   in read for credits in a process of 3 threads"},
	} {
		args := append([]string{"-b", "epoll", "-writer", c.writer, "-n", "10", "-l", "2", "-d", "300ms", "-i", "100ms"}, c.flags...)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, bin, args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if wait := lines[len(lines)-2]; wait != c.want {
				t.Errorf("line before the last %q, want %q", wait, c.want)
			}
			checkTokens(t, parseTokens(t, lines[len(lines)-3]), 2)
		})
	}
}

// lastLine is the last of lines that starts with prefix, or "".
func lastLine(lines []string, prefix string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], prefix) {
			return lines[i]
		}
	}
	return ""
}

// cpuList is the kernel's cpulist of the CPUs set in s: "0-3,6".
func cpuList(s *unix.CPUSet) string {
	var parts []string
	for cpu := 0; cpu < 1024; cpu++ {
		if !s.IsSet(cpu) {
			continue
		}
		last := cpu
		for last+1 < 1024 && s.IsSet(last+1) {
			last++
		}
		if last > cpu {
			parts = append(parts, fmt.Sprintf("%d-%d", cpu, last))
		} else {
			parts = append(parts, strconv.Itoa(cpu))
		}
		cpu = last
	}
	return strings.Join(parts, ",")
}

// TestHaltsLine: the yardstick counts the halts of the CPUs it may use,
// as pipebench does: its affinity mask (under taskset, the CPU it was
// confined to), and a figure where the machine shows cpuidle, "-" with
// the reason where it does not.
func TestHaltsLine(t *testing.T) {
	bin := build(t)
	var mask unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat("/sys/devices/system/cpu/cpu0/cpuidle")
	args := []string{"-b", "epoll", "-n", "10", "-l", "1", "-writer", "thread", "-d", "300ms", "-i", "100ms"}
	cases := []struct {
		name string
		cmd  *exec.Cmd
		cpus string
	}{{"unconfined", exec.Command(bin, args...), cpuList(&mask)}}
	if ts, err := exec.LookPath("taskset"); err == nil {
		first := 0
		for !mask.IsSet(first) {
			first++
		}
		cases = append(cases, struct {
			name string
			cmd  *exec.Cmd
			cpus string
		}{"taskset", exec.Command(ts, append([]string{"-c", strconv.Itoa(first), bin}, args...)...), strconv.Itoa(first)})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, c.cmd)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			var found []string
			for _, l := range strings.Split(stdout, "\n") {
				if m := haltsRe.FindStringSubmatch(l); m != nil {
					found = append(found, l)
					if m[1] != c.cpus {
						t.Errorf("%q: halts of CPUs %s, want %s", l, m[1], c.cpus)
					}
					switch {
					case statErr == nil && m[2][0] == '-':
						t.Errorf("%q: no figure, but this machine shows cpuidle", l)
					case statErr != nil && !strings.Contains(m[3], "no cpuidle"):
						t.Errorf("%q: want - and the reason: this machine has no cpuidle (%v)", l, statErr)
					}
				}
			}
			if len(found) != 1 {
				t.Errorf("CPUs' sched lines %q, want one:\n%s", found, stdout)
			}
		})
	}
}

// TestCalls: the hot loops make their system calls through sys6_function,
// a function that returns to the loop as a Go program's system calls do,
// unless -calls inline or go; the last line says which, and the tokens
// add up in each. The binary is held to it with objdump: sys6_function
// holds a syscall instruction and the reader calls it (a compiler that
// inlined it would make -calls function a lie); on x86-64 sys6_go_stub
// holds one too, reads its arguments from the stack, stores its result
// there, and the reader calls it and then reloads R14 through %fs, as Go's
// compiled code does after a call into assembly.
func TestCalls(t *testing.T) {
	bin := build(t)
	for _, c := range []struct{ flag, want string }{
		{"", callsFunction},
		{"function", callsFunction},
		{"inline", "calls          each system call in the loop's own code (-calls inline)"},
		{"go", "calls          each system call made as Go calls an assembly function: arguments and result on the stack, X15 and R14 restored after (-calls go)"},
	} {
		if c.flag == "go" && runtime.GOARCH != "amd64" {
			continue
		}
		args := []string{"-b", "epoll", "-n", "10", "-writer", "self", "-d", "200ms", "-i", "100ms"}
		if c.flag != "" {
			args = append(args, "-calls", c.flag)
		}
		code, stdout, stderr := run(t, bin, args...)
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if code != 0 || lines[len(lines)-1] != c.want {
			t.Errorf("-calls %q: exit %d, stderr %q, last line %q; want %q", c.flag, code, stderr, lines[len(lines)-1], c.want)
		}
		if !strings.Contains(stdout, " lost 0\n") {
			t.Errorf("-calls %q: tokens lost or not accounted for:\n%s", c.flag, stdout)
		}
	}
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Skipf("objdump not found, cannot look at the binary: %v", err)
	}
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", bin).Output()
	if err != nil {
		t.Fatalf("objdump -d: %v", err)
	}
	syscalls := map[string]int{}
	calls, goCalls, goReloads := 0, 0, 0
	var stub []string // sys6_go_stub's instructions
	fn := ""
	for _, l := range strings.Split(string(out), "\n") {
		if m := regexp.MustCompile(`^[0-9a-f]+ <([^>]+)>:$`).FindStringSubmatch(l); m != nil {
			fn = m[1]
			continue
		}
		if strings.HasSuffix(strings.TrimSpace(l), "syscall") {
			syscalls[fn]++
		}
		if fn == "reader" && strings.Contains(l, "call") && strings.Contains(l, "<sys6_function>") {
			calls++
		}
		if fn == "reader" && strings.Contains(l, "call") && strings.Contains(l, "<sys6_go_stub>") {
			goCalls++
		}
		if fn == "reader" && strings.Contains(l, "mov") && strings.Contains(l, "%fs:") && strings.HasSuffix(l, ",%r14") {
			goReloads++
		}
		if fn == "sys6_go_stub" {
			if f := strings.SplitN(strings.TrimSpace(l), ":", 2); len(f) == 2 && strings.TrimSpace(f[1]) != "" {
				stub = append(stub, strings.Join(strings.Fields(f[1]), " "))
			}
		}
	}
	if runtime.GOARCH == "amd64" && (syscalls["sys6_function"] != 1 || calls == 0) {
		t.Errorf("sys6_function holds %d syscall instructions and the reader calls it %d times; want 1 and some", syscalls["sys6_function"], calls)
	}
	if runtime.GOARCH != "amd64" {
		return
	}
	if syscalls["sys6_go_stub"] != 1 || goCalls == 0 || goReloads < goCalls {
		t.Errorf("sys6_go_stub holds %d syscall instructions, the reader calls it %d times and reloads R14 %d times; want 1, some and as many", syscalls["sys6_go_stub"], goCalls, goReloads)
	}
	// Go's ABI0 frame: the number and arguments read from the stack, the
	// result stored on it after the system call.
	text := strings.Join(stub, "\n")
	for _, want := range []string{"mov 0x8(%rsp),%rax", "mov 0x10(%rsp),%rdi", "mov 0x38(%rsp),%r9", "syscall\nmov %rax,0x40(%rsp)\nret"} {
		if !strings.Contains(text, want) {
			t.Errorf("sys6_go_stub has no %q:\n%s", want, text)
		}
	}
}

// TestTicker: -tick gives the reader's process a thread that wakes that
// often, and with -writer process the writer's process too (its idle
// thread), as the Go runtime's sysmon does in both of pipebench's; the
// line before the last says so. The writer process's other thread is held
// to it through /proc: a 1 ms tick wakes it far more often than its
// writer's credits could make an idle thread wake (never).
func TestTicker(t *testing.T) {
	bin := build(t)
	cmd := exec.Command(bin, "-b", "epoll", "-writer", "process", "-n", "10", "-l", "1", "-d", "600ms", "-i", "100ms", "-tick", "1ms")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
	fields := strings.Fields(string(children))
	woke := -1
	if len(fields) == 1 {
		tasks, _ := filepath.Glob("/proc/" + fields[0] + "/task/*")
		for _, task := range tasks {
			if filepath.Base(task) == fields[0] {
				continue // the writer itself
			}
			sched, _ := os.ReadFile(task + "/sched")
			if m := regexp.MustCompile(`nr_voluntary_switches\s*:\s*(\d+)`).FindSubmatch(sched); m != nil {
				woke, _ = strconv.Atoi(string(m[1]))
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("yardstick: %v\n%s", err, out.String())
	}
	if woke < 50 {
		t.Errorf("the writer process's other thread woke %d times in 400 ms of a 1 ms tick (children %q), want it ticking", woke, children)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := "ticker         a thread in each process wakes every 1ms (-tick), as the Go runtime's sysmon does"
	if got := lines[len(lines)-2]; got != want {
		t.Errorf("line before the last %q, want %q", got, want)
	}
}
