package yardstick

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestMinimal runs the minimal loop on every backend, alone and with its
// idle thread: it moves tokens (the median is above zero) and says so in
// the yardstick's words; a writer other than self is refused in one line.
func TestMinimal(t *testing.T) {
	bin := buildC(t, "minimal", "minimal")
	for _, b := range []string{"epoll", "epoll-et", "poll", "select", "uring"} {
		for _, idle := range []string{"0", "1"} {
			args := []string{"-b", b, "-n", "50", "-l", "5", "-writer", "self", "-d", "300ms", "-i", "100ms", "-idle-threads", idle}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, stdout, stderr := run(t, bin, args...)
				if b == "uring" {
					skipIfNoUring(t, code, strings.Replace(stderr, "minimal:", "yardstick:", 1))
				}
				if code != 0 || stderr != "" {
					t.Fatalf("exit %d, stderr %q", code, stderr)
				}
				lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
				if lines[0] != "50 pipes setup ("+b+", writer self)" {
					t.Errorf("first line %q", lines[0])
				}
				m := medianRe.FindStringSubmatch(lastLine(lines, "evts/sec       median"))
				if m == nil {
					t.Fatalf("no median line in %q", stdout)
				}
				if v, _ := strconv.Atoi(m[1]); v <= 0 {
					t.Errorf("median %d evts/sec, want tokens moving", v)
				}
				if n := len(intervalLines(lines)); n != 3 {
					t.Errorf("%d interval lines, want 3 (300ms in 100ms intervals)", n)
				}
			})
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-writer", "thread"}, "minimal: -writer thread: want self (the minimal loop writes its own tokens)\n"},
		{[]string{"-l", "0"}, "minimal: -l 0: want an integer from 1 to 4096\n"},
		{[]string{"-idle-threads", "-1"}, "minimal: -idle-threads -1: want an integer from 0 to 64\n"},
		{[]string{"-calls", "asm"}, "minimal: -calls asm: want function, inline or go\n"},
	} {
		if code, stdout, stderr := run(t, bin, c.args...); code != 2 || stdout != "" || stderr != c.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// intervalLines are the per-interval lines of a run's output.
func intervalLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		if intervalRe.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// schedRe is a sched line: the figures, or at an exact descriptor budget
// (TestDescriptorBudget) the reason no descriptor was left to read them.
var schedRe = regexp.MustCompile(`^sched          (reader|writer) thread  (cpu/evt (\S+)  user/evt (\S+)  sys/evt (\S+)  vol cs/evt [0-9.e+-]+  invol cs/evt [0-9.e+-]+  migr/evt [0-9.e+-]+  runq/evt \S+|not read: /proc/thread-self: Too many open files)$`)

// haltsRe is the CPUs' sched line: the CPUs the run may use, and their
// halts per event or "-" and why they were not counted.
var haltsRe = regexp.MustCompile(`^sched          CPUs (\S+) +halts/evt ([0-9.e+-]+|-  \((.+)\))$`)

// TestSchedLines: the yardstick prints the scheduler's figures per event
// for its measured threads, in the words of pipebench's cost table: the
// reader's alone in self mode, the writer's too with a writer thread or
// process; then the CPUs' halts.
func TestSchedLines(t *testing.T) {
	if _, err := os.Stat("/proc/thread-self/sched"); err != nil {
		t.Skipf("this kernel shows no /proc/thread-self/sched: %v", err)
	}
	bin := build(t)
	for _, c := range []struct {
		writer string
		want   []string
	}{{"self", []string{"reader"}}, {"thread", []string{"reader", "writer"}}, {"process", []string{"reader", "writer"}}} {
		code, stdout, stderr := run(t, bin, "-b", "epoll", "-n", "10", "-l", "2", "-writer", c.writer, "-d", "300ms", "-i", "100ms")
		if code != 0 || stderr != "" {
			t.Fatalf("-writer %s: exit %d, stderr %q", c.writer, code, stderr)
		}
		var got []string
		rate := 0.0
		for _, l := range strings.Split(stdout, "\n") {
			if f := strings.Fields(l); len(f) > 2 && f[0] == "evts/sec" && f[1] == "median" {
				rate, _ = strconv.ParseFloat(f[2], 64)
			}
			if m := schedRe.FindStringSubmatch(l); m != nil {
				got = append(got, m[1])
				if m[3] != "" {
					checkCPU(t, c.writer, l, m[3:6], rate, m[1] == "reader" && c.writer == "self")
				}
			} else if haltsRe.MatchString(l) {
				got = append(got, "CPUs")
			} else if strings.HasPrefix(l, "sched") {
				t.Errorf("-writer %s: line %q is not a sched line", c.writer, l)
			}
		}
		if want := append(c.want, "CPUs"); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("-writer %s: sched lines for %q, want %q", c.writer, got, want)
		}
	}
}

// checkCPU holds a sched line's CPU time per event (cpu, user, sys, as
// the line prints them) to what must be true of any thread's: cpu is user
// plus sys (to the three figures printed), and no thread uses more than
// the whole of a CPU: cpu/evt times the run's evts/sec at most 1 (1.25,
// for the median's spread). The reader of -writer self never sleeps (its
// pipes always hold a token), so its share is at least a third, on a
// machine as busy as a test run's.
func checkCPU(t *testing.T, writer, line string, f []string, rate float64, busy bool) {
	t.Helper()
	var ns [3]float64
	for i, s := range f {
		v, err := parseNanos(s)
		if err != nil {
			t.Errorf("-writer %s: sched line %q: %v", writer, line, err)
			return
		}
		ns[i] = v
	}
	if d := ns[0] - ns[1] - ns[2]; d > 0.01*ns[0]+1 || d < -0.01*ns[0]-1 {
		t.Errorf("-writer %s: sched line %q: cpu/evt is not user/evt plus sys/evt", writer, line)
	}
	if share := ns[0] * rate / 1e9; share > 1.25 || (busy && share < 0.33) {
		t.Errorf("-writer %s: sched line %q at %.0f evts/sec: the thread used %.2f of a CPU", writer, line, rate, share)
	}
}

// parseNanos reads a time as the C programs print it (nanos in common.h):
// 950ns, 1.4µs, 3.26ms, 2.5s.
func parseNanos(s string) (float64, error) {
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ns", 1}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("time %q: %w", s, err)
			}
			return x * u.scale, nil
		}
	}
	return 0, fmt.Errorf("time %q: want a number and ns, µs, ms or s", s)
}

// TestCompareMin: MIN=1 and MIN=alone keep the -writer self rows of the
// table; other values, MIN with AA, and MIN with no self row are refused
// in one line, before anything is built or measured.
func TestCompareMin(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("bash not found: %v", err)
	}
	list := func(env []string, args ...string) (int, string, string) {
		cmd := exec.Command(bash, append([]string{"compare.sh", "-list"}, args...)...)
		cmd.Env = append(os.Environ(), append([]string{"REPS=3", "DUR=3s", "AA=0", "TASKSET="}, env...)...)
		return runCmd(t, cmd)
	}
	for _, min := range []string{"1", "alone"} {
		code, stdout, stderr := list([]string{"MIN=" + min})
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if code != 0 || len(lines) != 25 || !strings.HasPrefix(lines[24], "24 rows x 3 runs") {
			t.Fatalf("MIN=%s -list: exit %d, %d lines, stderr %q; want the 24 self rows and the estimate", min, code, len(lines), stderr)
		}
		for _, l := range lines[:24] {
			if !strings.HasSuffix(l, "-writer self") {
				t.Errorf("MIN=%s lists %q", min, l)
			}
		}
	}
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"MIN=yes"}, nil, "compare.sh: MIN=yes: want 0, 1 or alone\n"},
		{[]string{"MIN=1", "AA=1"}, nil, "compare.sh: AA=1 and MIN=1: want one of them\n"},
		{[]string{"MIN=1", "AA=inline"}, nil, "compare.sh: AA=inline and MIN=1: want one of them\n"},
		{[]string{"AA=2"}, nil, "compare.sh: AA=2: want 0, 1 or inline\n"},
		{[]string{"CALLS=asm"}, nil, "compare.sh: CALLS=asm: want function, inline or go\n"},
		{[]string{"TICK=soon"}, nil, "compare.sh: TICK=soon: want 0 (no ticker) or a duration of 1us or more, such as 10ms\n"},
		{[]string{"TICK=5ns"}, nil, "compare.sh: TICK=5ns: want 0 (no ticker) or a duration of 1us or more, such as 10ms\n"},
		{[]string{"MIN=1"}, []string{"-writer", "thread"}, "compare.sh: MIN=1: want -writer self rows (the minimal loop writes its own tokens), no row has it\n"},
	} {
		if code, _, stderr := list(c.env, c.args...); code != 2 || stderr != c.want {
			t.Errorf("%v %v: exit %d, stderr %q; want exit 2 and %q", c.env, c.args, code, stderr, c.want)
		}
	}
}

// TestPairedList checks paired.sh's plan and its refusals without measuring
// anything (-list takes no lock and builds nothing).
func TestPairedList(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("bash not found: %v", err)
	}
	if runtime.NumCPU() < 2 {
		t.Skip("paired.sh wants two CPUs")
	}
	list := func(env []string, args ...string) (int, string, string) {
		cmd := exec.Command(bash, append([]string{"paired.sh"}, args...)...)
		cmd.Env = append(os.Environ(), append([]string{"PAIRS=3", "DUR=3s", "FIRST=", "CALLS=", "CPUS=", "AGAINST=", "TICK="}, env...)...)
		return runCmd(t, cmd)
	}
	code, stdout, stderr := list(nil, "-list", "-b uring -n 10 -l 1 -writer self", "-b epoll -n 1000 -l 10 -writer self")
	want := "$tmp/pipebench -b uring-nofixed-notaskrunflag -n 10 -l 1 -writer self -d 3s  against  $tmp/yardstick -b uring -n 10 -l 1 -writer self -d 3s -calls function -tick 10ms\n" +
		"$tmp/pipebench -b epoll -n 1000 -l 10 -writer self -d 3s  against  $tmp/yardstick -b epoll -n 1000 -l 10 -writer self -d 3s -calls function -tick 10ms\n" +
		"12 runs of each program, 3s each, the two at once on CPUs 0 and 1: about 1 min\n"
	if code != 0 || stdout != want {
		t.Errorf("-list: exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, stdout, want)
	}
	code, stdout, _ = list([]string{"FIRST=inline", "CALLS=inline", "PAIRS=1", "TICK=0"}, "-list", "-b poll -n 10 -writer self")
	if want := "$tmp/yardstick -b poll -n 10 -writer self -d 3s -calls inline  against  $tmp/yardstick -b poll -n 10 -writer self -d 3s -calls inline\n"; code != 0 || !strings.HasPrefix(stdout, want) {
		t.Errorf("FIRST=inline CALLS=inline -list: exit %d, stdout %q; want it to start %q", code, stdout, want)
	}
	code, stdout, _ = list([]string{"FIRST=go", "PAIRS=1"}, "-list", "-b epoll -n 10 -writer self")
	if want := "$tmp/yardstick -b epoll -n 10 -writer self -d 3s -calls go -tick 10ms  against  $tmp/yardstick -b epoll -n 10 -writer self -d 3s -calls function -tick 10ms\n"; code != 0 || !strings.HasPrefix(stdout, want) {
		t.Errorf("FIRST=go -list: exit %d, stdout %q; want it to start %q", code, stdout, want)
	}
	code, stdout, _ = list([]string{"CALLS=go", "PAIRS=1"}, "-list", "-b epoll -n 10 -writer self")
	if want := "$tmp/pipebench -b epoll -n 10 -writer self -d 3s  against  $tmp/yardstick -b epoll -n 10 -writer self -d 3s -calls go -tick 10ms\n"; code != 0 || !strings.HasPrefix(stdout, want) {
		t.Errorf("CALLS=go -list: exit %d, stdout %q; want it to start %q", code, stdout, want)
	}
	code, stdout, _ = list([]string{"FIRST=minimal", "PAIRS=1"}, "-list", "-b epoll -n 10 -writer self")
	if want := "$tmp/yardstick-minimal -b epoll -n 10 -writer self -d 3s -calls function  against  $tmp/yardstick -b epoll -n 10 -writer self -d 3s -calls function -tick 10ms\n"; code != 0 || !strings.HasPrefix(stdout, want) {
		t.Errorf("FIRST=minimal -list: exit %d, stdout %q; want it to start %q", code, stdout, want)
	}
	code, stdout, stderr = list([]string{"PAIRS=1"}, "-list", "-b epoll -n 1000 -l 0 -writer process")
	if want := "$tmp/pipebench -b epoll -n 1000 -l 0 -writer process -d 3s  against  $tmp/yardstick -b epoll -n 1000 -l 0 -writer process -d 3s -calls function -tick 10ms\n"; code != 0 || !strings.HasPrefix(stdout, want) {
		t.Errorf("-writer process -list: exit %d, stderr %q, stdout %q; want it to start %q", code, stderr, stdout, want)
	}
	code, stdout, stderr = list([]string{"AGAINST=HEAD", "PAIRS=1"}, "-list", "-b uring -n 10 -l 1 -writer self")
	if want := "$tmp/pipebench -b uring-nofixed-notaskrunflag -n 10 -l 1 -writer self -d 3s  against  $tmp/pipebench-against -b uring-nofixed-notaskrunflag -n 10 -l 1 -writer self -d 3s\n"; code != 0 || !strings.HasPrefix(stdout, want) {
		t.Errorf("AGAINST=HEAD -list: exit %d, stderr %q, stdout %q; want it to start %q", code, stderr, stdout, want)
	}
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"AGAINST=no-such-commit"}, []string{"-list", "-b epoll -writer self"}, "paired.sh: AGAINST=no-such-commit: want a commit of this repository, such as HEAD~1\n"},
		{[]string{"AGAINST=HEAD", "FIRST=yardstick"}, []string{"-list", "-b epoll -writer self"}, "paired.sh: AGAINST=HEAD: the first program must be pipebench (FIRST=yardstick)\n"},
		{[]string{"FIRST=asm"}, []string{"-list", "-b epoll -writer self"}, "paired.sh: FIRST=asm: want pipebench, yardstick, minimal, inline or go\n"},
		{[]string{"CALLS=asm"}, []string{"-list", "-b epoll -writer self"}, "paired.sh: CALLS=asm: want function, inline or go\n"},
		{[]string{"PAIRS=0"}, []string{"-list", "-b epoll -writer self"}, "paired.sh: PAIRS=0: want a positive integer\n"},
		{[]string{"DUR=1s"}, []string{"-list", "-b epoll -writer self"}, "paired.sh: DUR=1s: want whole seconds, 2s or more (pipebench's 1 s intervals, the first a warm-up)\n"},
		{[]string{"TICK=5"}, []string{"-list", "-b epoll -writer self"}, "paired.sh: TICK=5: want 0 (no ticker) or a duration of 1us or more, such as 10ms\n"},
		{[]string{"CPUS=1,1"}, []string{"-list", "-b epoll -writer self"}, "paired.sh: CPUS=1,1: want two different CPUs, such as 0,1\n"},
		{nil, []string{"-list", "-b epoll -n 10"}, "paired.sh: \"-b epoll -n 10\": want -writer self, thread or process\n"},
		{nil, []string{"-list", "-b epoll -writer auto"}, "paired.sh: \"-b epoll -writer auto\": want -writer self, thread or process\n"},
		{nil, []string{"-list", "taskset=0 -b epoll -writer thread"}, "paired.sh: \"taskset=0 -b epoll -writer thread\": paired.sh confines each program to one CPU itself (CPUS); leave out taskset=\n"},
		{[]string{"FIRST=minimal"}, []string{"-list", "-b epoll -writer process"}, "paired.sh: \"-b epoll -writer process\": the minimal loop (FIRST=minimal) has -writer self only\n"},
		{nil, []string{"-list", "-b epoll -writer self -d 5s"}, "paired.sh: \"-b epoll -writer self -d 5s\": the duration is DUR's\n"},
	} {
		if code, _, stderr := list(c.env, c.args...); code != 2 || stderr != c.want {
			t.Errorf("%v %v: exit %d, stderr %q; want exit 2 and %q", c.env, c.args, code, stderr, c.want)
		}
	}
}
