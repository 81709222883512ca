package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
	"github.com/pipebench/pipebench/uring"
)

// What a run does outside its measured loops, per process (the command, and
// its writer process in process mode), bounded from above: the Go runtime's
// start (it reads /sys and /proc), the machine's description (envinfo reads
// /proc), the runtime's netpoller (epoll_pwait, and an eventfd read and
// write whenever a timer must wake it), the output file; in process mode,
// the reading process's waits for the writer's control messages (ppoll, in
// slices of 100 ms); the runtime's epoll_ctl calls, for the descriptors
// it watches. Measured here at a third of each bound or less (about 50
// reads, 1 write, 11 epoll_pwait, 2 ppoll, 55 epoll_ctl); a count that is
// doubled or left out moves the difference by thousands.
const (
	otherReads    = 160
	otherWrites   = 8
	otherEpolls   = 32
	otherEpollCtl = 170
	controlPolls  = 8
)

// straceCases are short, small runs: strace makes every system call cost
// tens of microseconds, and it is the counts that are compared, not speed.
var straceCases = []struct {
	name, args string
}{
	{"epoll/self", "-b epoll -writer self -n 20 -l 4"},
	{"epoll/thread", "-b epoll -writer thread -n 20 -l 4"},
	// Nested: two epoll_pwait calls for each readiness call that found a
	// descriptor, the top set's and the bottom set's.
	{"epoll/thread/nest2", "-b epoll -writer thread -n 20 -l 4 -nest 2"},
	{"poll/self", "-b poll -writer self -n 20 -l 4"},
	{"poll/thread", "-b poll -writer thread -n 20 -l 4"},
	{"select/process", "-b select -writer process -n 20 -l 4"},
	// Two sockets hold about 550 one-byte writes; the reader sleeps 100ms
	// before each call, so the unbounded writer finds them full.
	{"epoll/thread/unbounded", "-b epoll -writer thread -n 2 -l 0 -fd unix -delay 100ms"},
	{"uring/self", "-b uring -writer self -n 20 -l 4"},
	{"uring-oneshot/thread", "-b uring-oneshot -writer thread -n 20 -l 4"},
	// An epoll set waited on through the ring: io_uring_enter waits, and
	// the epoll_ctl calls are system calls of their own (with -churn 4,
	// four removals and four additions after every call).
	{"uring-epoll/self", "-b uring-epoll -writer self -n 20 -l 4"},
	{"uring-epoll/process", "-b uring-epoll -writer process -n 20 -l 4"},
	{"uring-epoll/churn", "-b uring-epoll -writer self -n 20 -l 4 -churn 4"},
	// 64 removals and 64 additions after every call overfill the 64-entry
	// submission queue: io_uring_enter calls that only submit.
	{"uring-oneshot/churn", "-b uring-oneshot -writer self -n 64 -l 4 -churn 64"},
	// io_uring does the reads and writes: the reader's are no system calls.
	{"uring-rw/self", "-b uring-rw -writer self -n 20 -l 4"},
	{"uring-rw/thread", "-b uring-rw -writer thread -n 20 -l 4"},
	{"uring-rw-oneshot/process", "-b uring-rw-oneshot -writer process -n 20 -l 4"},
	{"uring-rw-sqpoll/self", "-b uring-rw-sqpoll -writer self -n 20 -l 4"},
}

// TestCountsAgainstStrace holds the counts a user sees (-format json) against
// an independent counter: strace -f -c, which counts every system call of
// the command and of its writer process. Only what the run does outside the
// measured window may differ, and by no more than that can explain:
//
//   - the readiness call (epoll_pwait, ppoll, pselect6, io_uring_enter):
//     the reader's wait_syscalls, plus the writer's credit waits where they
//     share a name (ppoll); more only by the Go runtime's own epoll_pwait,
//     or by the io_uring_enter calls that arm the polls before the window
//     (one per 64 pipes or part, 64 being the smallest submission queue,
//     and one for an EINTR);
//   - epoll_ctl, for the backends with an epoll set (epoll's, uring-epoll):
//     the reader's ctl_calls, plus one per pipe and per nested set
//     registered before the window, plus the runtime's own;
//   - ppoll of a writer waiting for credits: writer_waits, plus in process
//     mode the reading process's waits for control messages;
//   - ppoll and pselect6, more by a call the kernel restarted on its own: a
//     signal-pending wake-up that ran no handler (ERESTARTNOHAND) enters
//     the call again without returning to the program, which cannot count
//     it, while strace sees two calls; each such restart is one of strace's
//     errors for that call (so are the calls a handler ended with EINTR,
//     which the program counts), so the errors bound them (about 1 in 20
//     runs of uring-rw/thread under strace -c, one restart);
//   - read: the reader's and the writer's reads, plus the teardown's drain
//     (every pipe once, twice when it held tokens) and the runtime's reads;
//   - write: the reader's and the writer's writes, those that found a pipe
//     full included, plus the tokens self mode primes before the window,
//     the stop word and the output;
//   - for a backend whose io_uring does the reads and writes (uring-rw),
//     the reader's reads and writes are io_uring operations, not read(2)
//     and write(2): strace's read and write are the writer's and setup's
//     and teardown's alone, and its io_uring_enter the JSON's (SQPOLL
//     wake-ups included) and the arming's. So system calls per token
//     (summary.Syscalls) rest on counts strace confirms.
//
// It skips, saying why, only where strace is missing or cannot trace (.ci/run
// installs it), and the io_uring cases where the kernel or a seccomp filter
// refuses io_uring.
func TestCountsAgainstStrace(t *testing.T) {
	strace := straceOrSkip(t)
	bin := buildCommand(t)
	for _, c := range straceCases {
		t.Run(c.name, func(t *testing.T) {
			if strings.Contains(c.args, "-b uring") {
				skipWithoutUring(t)
			}
			dir := t.TempDir()
			out, table := filepath.Join(dir, "run.json"), filepath.Join(dir, "strace.txt")
			args := append([]string{"-f", "-c", "-o", table, "--", bin}, strings.Fields(c.args)...)
			args = append(args, "-d", "1s", "-i", "500ms", "-format", "json", "-o", out)
			if b, err := exec.Command(strace, args...).CombinedOutput(); err != nil {
				t.Fatalf("strace %s: %v\n%s", strings.Join(args, " "), err, b)
			}
			got, errs := straceTable(t, table)
			run := readRun(t, out)
			checkAgainstStrace(t, got, errs, run)
		})
	}
}

// straceRun is what the comparison reads of the command's JSON output.
type straceRun struct {
	Setup struct {
		Pipes    int    `json:"pipes"`
		Backend  string `json:"backend"`
		Writer   string `json:"writer"`
		InFlight int    `json:"in_flight"`
		IOInRing bool   `json:"io_in_ring"`
		Nest     int    `json:"nest"`
	} `json:"setup"`
	Totals struct {
		Events       uint64 `json:"events"`
		Calls        uint64 `json:"calls"`
		EmptyCalls   uint64 `json:"empty_calls"`
		WaitSyscalls uint64 `json:"wait_syscalls"`
		Reads        uint64 `json:"reads"`
		Writes       uint64 `json:"writes"`
		Ctl          uint64 `json:"ctl_calls"`
	} `json:"totals"`
	WriterWrites uint64 `json:"writer_writes"`
	WriterReads  uint64 `json:"writer_reads"`
	WriterWaits  uint64 `json:"writer_waits"`
	Tokens       struct {
		Lost int64  `json:"lost"`
		Full uint64 `json:"writer_full"`
	} `json:"tokens"`
}

func checkAgainstStrace(t *testing.T, got, errs map[string]uint64, run straceRun) {
	t.Helper()
	s, tot := run.Setup, run.Totals
	if run.Tokens.Lost != 0 {
		t.Errorf("%d tokens lost", run.Tokens.Lost)
	}
	// Below this a doubled count could hide in the bounds.
	if n := tot.Reads + run.WriterReads + tot.Writes + run.WriterWrites; n < 1000 {
		t.Errorf("only %d reads and writes under strace: too few for the comparison to tell a doubled count from setup", n)
	}
	if s.IOInRing && tot.Events < 1000 {
		t.Errorf("only %d events under strace: too few for the comparison to tell reads made as system calls from setup", tot.Events)
	}
	procs := uint64(1)
	if s.Writer == pipebench.WriterProcess.String() {
		procs = 2
	}
	pipes, primed := uint64(s.Pipes), uint64(0)
	if s.Writer == pipebench.WriterSelf.String() {
		primed = uint64(s.InFlight)
	}
	wait := waitSyscall(s.Backend)
	want := tot.WaitSyscalls
	if wait == "ppoll" {
		want += run.WriterWaits
	}
	polls := uint64(0)
	if procs > 1 {
		polls = controlPolls
	}
	var extra uint64
	switch wait {
	case "epoll_pwait":
		extra = otherEpolls * procs
	case "io_uring_enter":
		extra = pipes/64 + 2
	case "ppoll", "pselect6":
		extra = polls + errs[wait]
	}
	within(t, wait, got[wait], want, 0, extra)
	if s.Nest > 0 {
		// Each call that found a descriptor waited on the top set and
		// then read the bottom set's events.
		if lo := 2*(tot.Calls-tot.EmptyCalls) + tot.EmptyCalls; got[wait] < lo {
			t.Errorf("nest %d: strace counted %d epoll_pwait for %d readiness calls (%d empty), want at least %d",
				s.Nest, got[wait], tot.Calls, tot.EmptyCalls, lo)
		}
	}
	if wait != "ppoll" {
		within(t, "ppoll", got["ppoll"], run.WriterWaits, 0, polls+errs["ppoll"])
	}
	if strings.HasPrefix(s.Backend, "epoll") || strings.HasPrefix(s.Backend, "uring-epoll") {
		within(t, "epoll_ctl", got["epoll_ctl"], tot.Ctl, pipes, pipes+uint64(s.Nest)+otherEpollCtl*procs)
	}
	reads, writes := tot.Reads, tot.Writes
	if s.IOInRing {
		reads, writes = 0, 0 // io_uring operations, not system calls
	}
	within(t, "read", got["read"], reads+run.WriterReads, pipes, 2*pipes+otherReads*procs)
	within(t, "write", got["write"], writes+run.WriterWrites, primed, primed+otherWrites*procs)
	t.Logf("strace: %s %d, ppoll %d, read %d, write %d, epoll_ctl %d; json: calls %d, wait_syscalls %d, reads %d+%d, writes %d+%d (%d found a pipe full), writer waits %d, ctl_calls %d",
		wait, got[wait], got["ppoll"], got["read"], got["write"], got["epoll_ctl"], tot.Calls, tot.WaitSyscalls, tot.Reads, run.WriterReads,
		tot.Writes, run.WriterWrites, run.Tokens.Full, run.WriterWaits, tot.Ctl)
}

// within requires strace's count of a system call to be the JSON's plus
// between lo and hi calls made outside the measured window.
func within(t *testing.T, call string, strace, json, lo, hi uint64) {
	t.Helper()
	if strace < json+lo || strace > json+hi {
		t.Errorf("%s: strace counted %d, the JSON %d: a difference of %d, want %d to %d (setup and teardown)",
			call, strace, json, int64(strace)-int64(json), lo, hi)
	}
}

// waitSyscall is the system call a backend waits in.
func waitSyscall(backend string) string {
	switch {
	case strings.HasPrefix(backend, "epoll"):
		return "epoll_pwait"
	case strings.HasPrefix(backend, "uring"):
		return "io_uring_enter"
	case backend == "select":
		return "pselect6"
	}
	return "ppoll"
}

// straceOrSkip returns strace's path, or skips the test, saying why, where
// strace is missing or cannot trace (ptrace refused).
func straceOrSkip(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("strace")
	if err != nil {
		t.Skipf("strace is not installed (.ci/run installs it), so the counts are not held against it: %v", err)
	}
	if b, err := exec.Command(path, "-f", "-c", "-o", os.DevNull, "--", "true").CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here (ptrace refused?), so the counts are not held against it: %v: %s", err, strings.TrimSpace(string(b)))
	}
	return path
}

// skipWithoutUring skips where the kernel or a seccomp filter refuses
// io_uring, and fails on any other error.
func skipWithoutUring(t *testing.T) {
	t.Helper()
	be, err := uring.Factory.Open(pipebench.Options{Pipes: 1, MaxFD: 64})
	pipebenchtest.SkipIfRefused(t, err)
	if err != nil {
		t.Fatal(err)
	}
	be.Close()
}

// buildCommand builds the command as a user runs it, without the race
// detector, into the test's temporary directory.
func buildCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pipebench")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return bin
}

// straceTable reads the call and error counts of strace -c's table: a
// header, a rule, then "% time, seconds, usecs/call, calls, [errors,]
// syscall" rows, a rule and the total. A call's errors are the calls that
// returned an error, ERESTARTNOHAND included.
func straceTable(t *testing.T, path string) (calls, errs map[string]uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	calls, errs = map[string]uint64{}, map[string]uint64{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || len(f) > 6 || f[0] == "%" || strings.HasPrefix(f[0], "-") || f[len(f)-1] == "total" {
			continue
		}
		name := f[len(f)-1]
		calls[name] += parseCount(t, line, "calls", f[3])
		if len(f) == 6 {
			errs[name] += parseCount(t, line, "errors", f[4])
		}
	}
	if calls["read"] == 0 {
		t.Fatalf("no read in strace's table:\n%s", b)
	}
	return calls, errs
}

// parseCount parses one count of a row of strace's table.
func parseCount(t *testing.T, row, column, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("strace table row %q: %s %q: %v", row, column, s, err)
	}
	return n
}

// readRun reads the one run of a -format json document.
func readRun(t *testing.T, path string) straceRun {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []straceRun `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("%s holds %d runs, want 1", path, len(doc.Runs))
	}
	return doc.Runs[0]
}

// TestStraceTable reads a table strace 6 printed, with and without an
// errors column in a row.
func TestStraceTable(t *testing.T) {
	const table = `% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ------------------
 49.24    1.317941        2252       585        30 futex
 13.44    0.359660          81      4431           io_uring_enter
  1.13    0.030270          24      1248        20 read
  1.23    0.041172          26      1104         1 ppoll
------ ----------- ----------- --------- --------- ------------------
100.00    2.676640         203     13160        64 total
`
	path := filepath.Join(t.TempDir(), "strace.txt")
	if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	calls, errs := straceTable(t, path)
	for name, want := range map[string][2]uint64{"futex": {585, 30}, "io_uring_enter": {4431, 0}, "read": {1248, 20}, "ppoll": {1104, 1}, "total": {0, 0}} {
		if calls[name] != want[0] || errs[name] != want[1] {
			t.Errorf("%s: calls %d, errors %d; want %d, %d", name, calls[name], errs[name], want[0], want[1])
		}
	}
}
