package yardstick

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// instructions runs instructions.sh with env added to the test's and args.
func instructions(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bashOrSkip(t), append([]string{"instructions.sh"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return runCmd(t, cmd)
}

// TestInstructionsList checks instructions.sh's plan and its refusals
// without counting anything (-list takes no lock and builds nothing).
func TestInstructionsList(t *testing.T) {
	const cfg = "-b poll -n 1000 -l 1 -writer self"
	code, stdout, stderr := instructions(t, nil, "-list", cfg)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != 0 || stderr != "" || len(lines) != 4 {
		t.Fatalf("-list: exit %d, stderr %q, %d lines; want the four commands", code, stderr, len(lines))
	}
	wants := []string{
		"env GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file=/dev/null '--toggle-collect=*reader).hot' $tmp/pipebench " + cfg + " -d 3s",
		"valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=reader $tmp/yardstick " + cfg + " -d 3s -calls function -tick 10ms",
		"valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=reader $tmp/yardstick " + cfg + " -d 3s -calls go -tick 10ms",
		"valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=reader $tmp/yardstick " + cfg + " -d 3s -calls inline -tick 10ms",
	}
	for i, want := range wants {
		if lines[i] != want {
			t.Errorf("-list line %d:\n got %q\nwant %q", i+1, lines[i], want)
		}
	}
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"-b uring -n 10 -l 1 -writer self"}, `instructions.sh: "-b uring -n 10 -l 1 -writer self": want -b epoll, epoll-et, poll or select: the yardstick's backends but uring, whose system calls valgrind 3.19 does not know` + "\n"},
		{nil, []string{"-b poll -n 10 -l 1"}, `instructions.sh: "-b poll -n 10 -l 1": want -writer self (pipebench refuses a writer thread with GODEBUG=asyncpreemptoff=1, and watches a writer process with pidfd_open, which valgrind 3.19 does not know)` + "\n"},
		{nil, []string{"-b poll -n 10 -l 1 -writer thread"}, `instructions.sh: "-b poll -n 10 -l 1 -writer thread": want -writer self (pipebench refuses a writer thread with GODEBUG=asyncpreemptoff=1, and watches a writer process with pidfd_open, which valgrind 3.19 does not know)` + "\n"},
		{nil, []string{"-b poll -n 10 -l 1 -writer process"}, `instructions.sh: "-b poll -n 10 -l 1 -writer process": want -writer self (pipebench refuses a writer thread with GODEBUG=asyncpreemptoff=1, and watches a writer process with pidfd_open, which valgrind 3.19 does not know)` + "\n"},
		{nil, []string{"-b poll -n 10 -l 1 -writer self -d 5s"}, `instructions.sh: "-b poll -n 10 -l 1 -writer self -d 5s": leave out taskset= and -d (the duration is DUR's)` + "\n"},
		{[]string{"DUR=1s"}, []string{cfg}, "instructions.sh: DUR=1s: want 2s or more (pipebench's 1 s intervals, the first a warm-up)\n"},
		{[]string{"TICK=soon"}, []string{cfg}, "instructions.sh: TICK=soon: want 0 (no ticker) or a duration of 1us or more, such as 10ms\n"},
	} {
		if code, stdout, stderr := instructions(t, c.env, append([]string{"-list"}, c.args...)...); code != 2 || stdout != "" || stderr != c.want {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.env, c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestInstructions counts under callgrind and holds the counts to what the
// programs must execute: the yardstick's poll reader at 1000 pipes scans
// about 500 entries a call (the ready one is anywhere in the array), so
// executes more than 1000 instructions a token, and its epoll reader,
// which scans nothing, fewer; making the system calls inline executes the
// fewest, and as Go does (-calls go) more than inline. pipebench executes
// at most 1.3 times what the yardstick does with -calls go: its poll scan,
// inlined into the reader's loop, once ran 2.4 times (7795 against 3308 a
// token at -n 1000 -l 1; git log -- docs/speed.md).
func TestInstructions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the programs under valgrind for about half a minute")
	}
	if runtime.GOARCH != "amd64" {
		t.Skipf("the yardstick's -calls go is x86-64's; this is %s", runtime.GOARCH)
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skipf("valgrind not found (Debian package valgrind; .ci/run installs it): %v", err)
	}
	configs := []string{"-b poll -n 1000 -l 1 -writer self", "-b epoll -n 10 -l 1 -writer self"}
	code, stdout, stderr := instructions(t, []string{"DUR=2s"}, configs...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	rows := map[string][]float64{}
	for _, l := range strings.Split(stdout, "\n") {
		for _, cfg := range configs {
			rest, ok := strings.CutPrefix(l, cfg)
			if !ok {
				continue
			}
			f := strings.Fields(rest)
			if len(f) != 5 {
				t.Fatalf("row %q: want four counts and a ratio", l)
			}
			for _, s := range f {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil || v <= 0 {
					t.Fatalf("row %q: %q is not a positive number", l, s)
				}
				rows[cfg] = append(rows[cfg], v)
			}
		}
	}
	if len(rows) != len(configs) {
		t.Fatalf("rows for %d of %d configurations in %q", len(rows), len(configs), stdout)
	}
	for _, cfg := range configs {
		pb, function, goCalls, inline, ratio := rows[cfg][0], rows[cfg][1], rows[cfg][2], rows[cfg][3], rows[cfg][4]
		if got := pb / goCalls; got > 1.3 || got < ratio-0.01 || got > ratio+0.01 {
			t.Errorf("%s: pipebench %.1f instructions a token, the yardstick with -calls go %.1f: ratio %.2f (printed %.2f), want at most 1.3", cfg, pb, goCalls, got, ratio)
		}
		if inline >= function || inline >= goCalls {
			t.Errorf("%s: the yardstick's inline calls %.1f instructions a token, function %.1f, go %.1f: want inline the fewest", cfg, inline, function, goCalls)
		}
		scans := strings.HasPrefix(cfg, "-b poll -n 1000")
		if scans != (function > 1000) {
			t.Errorf("%s: the yardstick executes %.1f instructions a token; want more than 1000 only where it scans 1000 entries", cfg, function)
		}
	}
}
