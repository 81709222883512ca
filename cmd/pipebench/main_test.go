package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/internal/golden"
)

// TestMain lets this test binary serve as its own writer process and herd
// waiter process.
func TestMain(m *testing.M) {
	child.Serve()
	os.Exit(m.Run())
}

// numbers hides what changes from run to run, so that golden files hold the
// output's shape.
var numbers = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?(ns|µs|ms|s|%)?`)

var (
	spaces = regexp.MustCompile(` {2,}`)
	// The machine's lines: the first and those indented under it.
	machine = regexp.MustCompile(`(?m)^machine .*(\n {15}.*)*$`)
	halts   = regexp.MustCompile(`idle entries/evt \S+`)
	// Which CPUs' idle entries were counted, or why they were not (-v).
	idleCPUs = regexp.MustCompile(`(?m)^idle entries .*$`)
	// A line of a summary wrapped under its label, where the numbers
	// before it were wide.
	wrapped = regexp.MustCompile(`\n {15}(\S)`)
	// An open-loop run's idle CPUs (read from /proc/stat, or not) and its
	// verdict on saturation, which a loaded machine can move.
	idle    = regexp.MustCompile(`  (CPUs [0-9,-]+ [0-9.]+% idle|idle -)  `)
	verdict = regexp.MustCompile(`(?m)  (below|past) saturation.*$`)
)

// shape keeps the words of the output and drops what varies: numbers, the
// column padding that depends on them, the machine's description, its
// CPUs' halts (a figure and the CPUs counted, or why they could not be:
// no cpuidle in a container, say) and idle time, and an open-loop run's
// verdict on saturation.
func shape(b []byte) []byte {
	b = machine.ReplaceAll(b, []byte("machine (this machine)"))
	b = idleCPUs.ReplaceAll(b, []byte("idle entries (this machine's CPUs)"))
	b = wrapped.ReplaceAll(b, []byte(" $1"))
	b = halts.ReplaceAll(b, []byte("idle entries/evt (this machine's CPUs)"))
	b = idle.ReplaceAll(b, []byte("  (this machine's CPUs idle)  "))
	b = verdict.ReplaceAll(b, []byte("  (saturation verdict)"))
	b = numbers.ReplaceAll(b, []byte("#"))
	return spaces.ReplaceAll(b, []byte(" "))
}

func invoke(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = command(args, &out, &errb, nil)
	return code, out.String(), errb.String()
}

// badInputs are command lines refused before any work, each with the
// golden file of its one line.
var badInputs = []struct{ name, args string }{
	{"pipes-not-a-number", "-n abc"},
	{"pipes-zero", "-n 0"},
	{"pipes-too-many", "-n 2000000"},
	{"inflight-negative", "-l -1"},
	{"inflight-too-many", "-l 5000"},
	{"duration-no-unit", "-d 10"},
	{"duration-negative", "-d -1s"},
	{"interval-zero", "-i 0"},
	{"interval-longer-than-duration", "-i 2s -d 1s"},
	{"unknown-backend", "-b kqueue"},
	{"unknown-writer", "-writer fork"},
	{"unknown-route", "-route zigzag"},
	{"unknown-flag", "-x"},
	{"stray-argument", "-n 10 extra"},
	{"bypass-with-backend", "-f -b poll"},
	{"bypass-with-thread", "-f -writer thread"},
	{"bypass-unbounded", "-f -l 0"},
	{"bypass-unbounded-self", "-f -l 0 -writer self"},
	{"unbounded-self", "-l 0 -writer self"},
	{"limit-self", "-n 15000 -writer self"},
	{"limit-process", "-n 30000 -writer process"},
	{"cpuprofile-unwritable", "-cpuprofile /nonexistent/dir/c.pb.gz"},
	{"kprofile-unwritable", "-kprofile /nonexistent/dir/k.pb.gz"},
	{"profiles-same-file", "-cpuprofile p.pb.gz -kprofile p.pb.gz"},
	{"profile-with-count", "-kprofile k.pb.gz -count 2"},
	{"perfdata-without-kprofile", "-perfdata p.data"},
	{"perfdata-same-as-profile", "-kprofile k.pb.gz -perfdata k.pb.gz"},
	{"top-no-file", "top"},
	{"top-two-files", "top a.pb.gz b.pb.gz"},
	{"top-missing-file", "top /nonexistent/k.pb.gz"},
	{"top-rows-zero", "top -rows 0 k.pb.gz"},
	{"top-not-a-profile", "top testdata/errors/top-not-a-profile.golden"},
	{"format-unknown", "-format xml"},
	{"unix-inflight", "-fd unix -l 300"},
	{"seed-negative", "-seed -1"},
	{"duration-not-whole-intervals", "-d 1500ms -i 1s"},
	{"warmup-all", "-d 1s"},
	{"warmup-too-many", "-d 3s -warmup 3"},
	{"output-same-as-profile", "-o /tmp/pipebench-same.pb -cpuprofile /tmp/pipebench-same.pb"},
	{"fd-unknown", "-fd fifo"},
	{"churn-negative", "-churn -1"},
	{"churn-more-than-pipes", "-n 10 -churn 11"},
	{"delay-no-unit", "-delay 200"},
	{"minwait-no-unit", "-minwait 5"},
	{"minwait-negative", "-minwait -1ms"},
	{"minwait-too-long", "-minwait 200ms"},
	{"minwait-epoll", "-b epoll -minwait 1ms"},
	{"minwait-bypass", "-f -minwait 1ms"},
	{"minwait-uring-rw", "-b uring-rw -minwait 1ms"},
	{"uring-epoll-nodefer", "-b uring-epoll-nodefer"},
	{"cpu-bad", "-cpu a,b"},
	{"cpu-three", "-cpu 0,1,0"},
	{"cpu-not-allowed", "-cpu 999"},
	{"eventfd-latency", "-fd eventfd -latency"},
	{"readers-zero", "-readers 0"},
	{"readers-too-many", "-readers 2000"},
	{"readers-self", "-readers 2 -writer self"},
	{"readers-more-than-pipes", "-n 3 -readers 4"},
	{"readers-bypass", "-f -readers 2"},
	{"writers-zero", "-writers 0"},
	{"writers-process", "-writers 2 -writer process"},
	{"writers-more-than-tokens", "-writers 4 -l 3"},
	{"maxevents-negative", "-maxevents -1"},
	{"maxevents-bypass", "-f -maxevents 1"},
	{"nest-too-deep", "-nest 5"},
	{"nest-poll", "-b poll -nest 1"},
	{"nest-bypass", "-f -nest 1"},
	{"share-one-reader", "-share"},
	{"share-poll", "-b poll -readers 2 -share"},
	{"share-churn", "-readers 2 -share -churn 1"},
	{"cpu-list-length", "-readers 2 -writers 2 -l 4 -cpu 0,1,0"},
	{"cpu-spread-gonet", "-b gonet -cpu spread"},
	{"cpu-list-not-allowed", "-readers 2 -cpu 0,998,999"},
	{"rate-zero", "-rate 0"},
	{"rate-negative", "-rate -5"},
	{"rate-not-a-number", "-rate abc"},
	{"rate-too-high", "-rate 2000M"},
	{"rate-inflight", "-rate 1k -l 4"},
	{"rate-self", "-rate 1k -writer self"},
	{"rate-bypass", "-f -rate 1k"},
	{"count-zero", "-count 0"},
	{"count-until-interrupted", "-count 2 -d 0"},
	{"herd-waiters-zero", "herd -waiters 0"},
	{"herd-waiters-too-many", "herd -waiters 5000"},
	{"herd-mode-unknown", "herd -mode fork"},
	{"herd-exclusive-unknown", "herd -exclusive maybe"},
	{"herd-unbounded", "herd -l 0"},
	{"herd-interval-longer", "herd -d 1s -i 2s"},
	{"herd-format-unknown", "herd -format xml"},
	{"herd-stray-argument", "herd extra"},
	{"limit-herd", "herd -n 1000000"},
	{"timeout-list-bad", "timeout -timeouts 50us,abc"},
	{"timeout-zero", "timeout -timeouts 0"},
	{"timeout-too-long", "timeout -timeouts 2s"},
	{"timeout-samples-zero", "timeout -samples 0"},
	{"timeout-mechanism-unknown", "timeout -mechanisms kqueue"},
	{"timeout-slack-negative", "timeout -slack -1us"},
	{"timeout-format-unknown", "timeout -format xml"},
	{"timeout-list-twice", "timeout -timeouts 1ms,1ms"},
	{"seeds-format-unknown", "seeds -format xml"},
	{"seeds-stray-argument", "seeds -quick extra"},
	{"show-no-file", "show"},
	{"show-two-files", "show a.json b.json"},
	{"show-missing-file", "show /nonexistent/r.json"},
	{"show-not-a-record", "show testdata/errors/top-not-a-profile.golden"},
	{"show-v-not-a-run", "show -v testdata/compare/cross-a.json"},
}

func TestBadInput(t *testing.T) {
	for _, c := range badInputs {
		t.Run(c.name, func(t *testing.T) {
			stderr := badInput(t, c.args, "pipebench: ")
			got := []byte("$ pipebench " + c.args + "\n" + stderr)
			if strings.HasPrefix(c.name, "limit-") || c.name == "cpu-not-allowed" || c.name == "cpu-list-not-allowed" {
				// The counts depend on the descriptors this process inherited.
				got = shape(got)
			}
			golden.Check(t, "errors/"+c.name+".golden", got)
		})
	}
}

// badInput runs args, which must be refused before any work: exit status 2,
// nothing on stdout, one line on stderr starting with prefix. It returns
// that line.
func badInput(t *testing.T, args, prefix string) string {
	t.Helper()
	code, stdout, stderr := invoke(t, strings.Fields(args)...)
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if stdout != "" {
		t.Errorf("bad input printed to stdout: %q", stdout)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, prefix) {
		t.Errorf("want one line starting with %q, got %q", prefix, stderr)
	}
	return stderr
}

func TestHelp(t *testing.T) {
	code, stdout, _ := invoke(t, "-h")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"-n", "-l", "-b", "-f", "-writer", "-d", "-i", "-seed", "-route", "-v"} {
		if !regexp.MustCompile(`(?m)^  ` + f + `\b`).MatchString(stdout) {
			t.Errorf("help does not describe %s", f)
		}
	}
	// Each flag with the word it takes and the values it allows; then
	// examples that run.
	for _, want := range []string{`(?m)^  -n pipes\n\s+number of pipes; 1\.\.1000000 \(default 1000\)$`,
		`(?m)^  -i duration\n\s+reporting interval; 10ms\.\.1h \(default 1s\)$`,
		`(?m)^  -d duration\n\s+measured duration; 1ms\.\.24h; 0: runs until interrupted \(default 10s\)$`,
		`(?m)^  -latency\n`, `(?m)^examples:\n  pipebench -n 10000 -l 10\n`} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("help does not match %s:\n%s", want, stdout)
		}
	}
	examples := 0
	for _, ex := range regexp.MustCompile(`(?m)^  (pipebench -[^&\n]*)$`).FindAllStringSubmatch(stdout, -1) {
		// An example's flags are good input: every flag known, every
		// value allowed (parsed only, not run: -cpu 0,1 needs two CPUs).
		// -h after them: the command parses them, then prints its help.
		if code, _, stderr := invoke(t, append(strings.Fields(ex[1])[1:], "-h")...); code != exitOK {
			t.Errorf("example %q: exit %d: %s", ex[1], code, stderr)
		}
		examples++
	}
	if examples < 3 {
		t.Errorf("%d examples of the plain run in the help, want 3 or more", examples)
	}
	for _, sub := range []string{"", "sweep", "herd", "timeout", "seeds", "compare", "top"} {
		args := []string{"-h"}
		if sub != "" {
			args = []string{sub, "-h"}
		}
		_, out, _ := invoke(t, args...)
		checkWidth(t, out, 80)
	}
}

func TestOutputShape(t *testing.T) {
	cases := []struct{ name, args string }{
		{"self", "-n 20 -l 2 -writer self -d 300ms -i 100ms"},
		{"thread", "-n 20 -l 2 -writer thread -b poll -d 300ms -i 100ms"},
		{"process", "-n 20 -l 2 -writer process -b select -d 300ms -i 100ms"},
		{"bypass", "-n 20 -l 2 -f -d 300ms -i 100ms"},
		{"bypass-process", "-n 20 -l 2 -f -writer process -d 300ms -i 100ms"},
		{"rate", "-n 20 -rate 5k -writer thread -b poll -latency -d 300ms -i 100ms"},
		{"verbose", "-n 20 -l 2 -writer process -b epoll -v -d 300ms -i 100ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := invoke(t, strings.Fields(c.args)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if len(lines) < 4 || !strings.Contains(lines[0], "pipes setup") {
				t.Fatalf("unexpected output:\n%s", stdout)
			}
			for _, l := range lines[1:4] {
				if !regexp.MustCompile(`^[0-9]+ evts/sec( [0-9.e+]+ samples per call)?$`).MatchString(l) {
					t.Errorf("interval line %q is not in epoll_pipe_bench's format", l)
				}
			}
			if !strings.Contains(stdout, " lost 0") {
				t.Errorf("summary does not account for every token:\n%s", stdout)
			}
			checkWidth(t, stdout, 80)
			// Warnings depend on the machine's noise; the golden file holds the rest.
			var kept []string
			for _, l := range strings.Split(stdout, "\n") {
				if !strings.HasPrefix(l, "warning: ") {
					kept = append(kept, l)
				}
			}
			golden.Check(t, "output/"+c.name+".golden", shape([]byte("$ pipebench "+c.args+"\n"+strings.Join(kept, "\n"))))
		})
	}
}

// checkWidth fails the test for each line of out wider than width: the
// text is pasted into mail.
func checkWidth(t *testing.T, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > width {
			t.Errorf("line %d: %d columns, over %d: %s", i+1, n, width, l)
		}
	}
}

// TestSeedCommands: the five commands of seed 001 run here as written,
// each for a short window (-d 300ms -i 100ms -warmup 0 added): -n 10000
// -f, which one process cannot hold in self mode (20007 descriptors, limit
// 20000), with a writer process, the setup line saying why.
func TestSeedCommands(t *testing.T) {
	for _, args := range []string{"-n 1000 -l 1", "-n 1000 -l 10", "-n 10000 -l 1", "-n 10000 -l 10", "-n 10000 -f"} {
		t.Run(args, func(t *testing.T) {
			code, stdout, stderr := invoke(t, strings.Fields(args+" -d 300ms -i 100ms -warmup 0")...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, " lost 0") {
				t.Errorf("tokens unaccounted for:\n%s", stdout)
			}
			first, _, _ := strings.Cut(stdout, "\n")
			if strings.HasSuffix(args, "-f") && !strings.Contains(first, "bypass, writer process: self needs") {
				t.Errorf("setup line %q: want the bypass with a writer process, and why", first)
			}
		})
	}
}

func TestInterrupt(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	var out, errb bytes.Buffer
	code := command(strings.Fields("-n 10 -d 0 -writer self"), &out, &errb, stop)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "interrupted after") || !strings.Contains(out.String(), "lost 0") {
		t.Errorf("an interrupted run must still print its summary:\n%s", out.String())
	}
}
