package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/compare"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/seeds"
	"github.com/pipebench/pipebench/internal/golden"
)

// The records under testdata/compare were made by pipebench on a 2-core
// Intel Xeon VM on 1 December 2026: a.json by `sweep -b epoll,poll -n
// 10,100 -count 6 -d 400ms -i 100ms`, b.json the same with -route next,
// run.json by `-b epoll -n 100 -count 3 -d 400ms -i 100ms`, herd.json by
// `herd -count 3 -d 600ms -i 200ms -waiters 4 -n 20`, timeout.json by
// `timeout -count 3 -samples 20 -timeouts 50us,1ms -mechanisms
// ppoll,epoll_pwait2`.
func TestCompareGolden(t *testing.T) {
	for _, c := range []struct{ name, args string }{
		{"ab.text", "compare testdata/compare/a.json testdata/compare/b.json"},
		{"by-b.text", "compare -by b testdata/compare/a.json"},
		{"by-n.markdown", "compare -by n -format markdown testdata/compare/a.json"},
		{"one.text", "compare testdata/compare/run.json"},
		{"ab.csv", "compare -format csv testdata/compare/a.json testdata/compare/b.json"},
		{"herd.text", "compare -by exclusive testdata/compare/herd.json"},
		{"by-b-base.text", "compare -by b -base poll testdata/compare/a.json"},
		{"timeout.text", "compare -by mechanisms testdata/compare/timeout.json"},
		{"herd-aa.text", "compare testdata/compare/herd.json testdata/compare/herd.json"},
		{"floor.text", "compare -floor 5% testdata/compare/a.json testdata/compare/b.json"},
		{"metric.text", "compare -metric cpu/token -by b testdata/compare/a.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := invoke(t, strings.Fields(c.args)...)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			// The command line of the compare itself ends the text; the
			// build is the test binary's.
			checkCompareGolden(t, c.name, stdout)
		})
	}
}

// checkCompareGolden checks compare's output against its golden file and,
// for text, that no line is wider than compare.TextWidth.
func checkCompareGolden(t *testing.T, name, stdout string) {
	t.Helper()
	golden.Check(t, "compare/"+name+".golden", []byte(stdout))
	if strings.HasSuffix(name, ".text") {
		for i, line := range strings.Split(stdout, "\n") {
			if n := len([]rune(line)); n > compare.TextWidth {
				t.Errorf("%s: line %d is %d columns, over %d: %q", name, i+1, n, compare.TextWidth, line)
			}
		}
	}
}

// The table's figures are the records' own: each median and each change
// recomputed here from the repetitions in the files.
func TestCompareFiguresFromTheRecords(t *testing.T) {
	evts := func(path, backend string, pipes int) []float64 {
		var d struct {
			Points []struct {
				Backend      string  `json:"backend"`
				Pipes        int     `json:"pipes"`
				EventsPerSec float64 `json:"evts_per_sec"`
			} `json:"points"`
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		var xs []float64
		for _, p := range d.Points {
			if p.Backend == backend && p.Pipes == pipes {
				xs = append(xs, p.EventsPerSec)
			}
		}
		return xs
	}
	a := evts("testdata/compare/a.json", "epoll", 10)
	b := evts("testdata/compare/b.json", "epoll", 10)
	if len(a) != 6 || len(b) != 6 {
		t.Fatalf("want six repetitions each, got %d and %d", len(a), len(b))
	}
	code, stdout, _ := invoke(t, "compare", "-format", "json", "testdata/compare/a.json", "testdata/compare/b.json")
	if code != exitOK {
		t.Fatal("exit", code)
	}
	var c struct {
		Format  string `json:"format"`
		Command string `json:"command"`
		Configs []struct {
			Label string `json:"configuration"`
			Rows  []struct {
				Metric    string `json:"metric"`
				Summaries []struct {
					N      int     `json:"n"`
					Median float64 `json:"median"`
				} `json:"summaries"`
				Changes []struct {
					Change float64 `json:"change"`
				} `json:"changes"`
			} `json:"rows"`
		} `json:"configurations"`
	}
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatal(err)
	}
	if c.Format != record.Format || c.Command != "compare" {
		t.Errorf("the comparison is not a record of compare: %q %q", c.Format, c.Command)
	}
	median := func(xs []float64) float64 {
		s := append([]float64{}, xs...)
		for i := range s {
			for j := i + 1; j < len(s); j++ {
				if s[j] < s[i] {
					s[i], s[j] = s[j], s[i]
				}
			}
		}
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	found := false
	for _, cf := range c.Configs {
		if cf.Label != "-b epoll -n 10 -l 1" || cf.Rows[0].Metric != "evts/sec" {
			continue
		}
		found = true
		r := cf.Rows[0]
		if r.Summaries[0].N != 6 || r.Summaries[0].Median != median(a) || r.Summaries[1].Median != median(b) {
			t.Errorf("medians %+v, want %v and %v over 6", r.Summaries, median(a), median(b))
		}
		if want := median(b)/median(a) - 1; r.Changes[0].Change != want {
			t.Errorf("change %v, want %v", r.Changes[0].Change, want)
		}
	}
	if !found {
		t.Error("no evts/sec row for -b epoll -n 10 -l 1")
	}
}

func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, err := os.ReadFile("testdata/compare/a.json")
	if err != nil {
		t.Fatal(err)
	}
	newer := strings.Replace(string(a), `"format_version": 2`, `"format_version": 99`, 1)
	old := regexp.MustCompile(`"format": "pipebench-record",\s*"format_version": 2,`).ReplaceAllString(string(a), "")
	for _, c := range []struct{ name, args, want string }{
		{"no file", "compare", "pipebench: compare: no record given"},
		{"missing", "compare " + filepath.Join(dir, "none.json"), "none.json: cannot read it"},
		{"not json", "compare " + write("text.json", "10000 pipes setup\n"), "text.json: not JSON, or cut short"},
		{"truncated", "compare " + write("cut.json", string(a[:len(a)/2])), "cut.json: not JSON, or cut short"},
		{"not a record", "compare " + write("other.json", `{"format": "something else"}`), "other.json: not a pipebench record"},
		{"newer", "compare " + write("newer.json", newer), "newer.json: record format version 99 is newer"},
		{"older", "compare " + write("old.json", old), "old.json: written by an older pipebench"},
		{"two commands", "compare testdata/compare/a.json testdata/compare/run.json", "run.json: a record of pipebench run, where"},
		{"by not varying", "compare -by l testdata/compare/a.json", "pipebench: compare: -by l: -l does not vary"},
		{"by unknown", "compare -by seed testdata/compare/a.json", "pipebench: compare: -by seed:"},
		{"base without by", "compare -base poll testdata/compare/a.json", "pipebench: compare: -base poll chooses among the values of -by"},
		{"base not a value", "compare -by b -base select testdata/compare/a.json", "pipebench: compare: -base select: not a value of -b in testdata/compare/a.json (epoll, poll)"},
		{"by two files", "compare -by b testdata/compare/a.json testdata/compare/b.json", "pipebench: compare: -by b compares the values of a flag inside one record"},
		{"flag after files", "compare testdata/compare/a.json -format csv", "pipebench: compare: -format after the records"},
		{"bad format", "compare -format html testdata/compare/a.json", "pipebench: compare: invalid value"},
		{"plot of runs", "compare -plot " + filepath.Join(dir, "p.svg") + " testdata/compare/run.json", "pipebench: compare: -plot draws sweep records"},
		{"plot name", "compare -plot p.gif testdata/compare/a.json", "pipebench: compare: -plot:"},
		{"out is input", "compare -o testdata/compare/a.json testdata/compare/a.json", "pipebench: compare: -o testdata/compare/a.json is one of the records"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := badInput(t, c.args, "pipebench: compare")
			if !strings.Contains(got, c.want) {
				t.Errorf("got %q, want it to say %q", got, c.want)
			}
		})
	}
}

func TestComparePlot(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ab.svg")
	code, _, stderr := invoke(t, "compare", "-plot", p, "testdata/compare/a.json", "testdata/compare/b.json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// A curve per record and backend, named in the legend.
	for _, name := range []string{"A: epoll -l 1", "A: poll -l 1", "B: epoll -l 1", "B: poll -l 1"} {
		if !strings.Contains(string(b), name) {
			t.Errorf("the plot has no curve %q", name)
		}
	}
}

// Every flag of every subcommand is in its record, with the value it was
// given: a flag added without reaching the record fails here. The flags
// given are set away from their defaults where a short run allows it, in
// the form the flag prints them (1µs, not 1us).
func TestRecordHoldsEveryFlag(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var plan seeds.Plan
	fakeSeeds(t, &plan)
	given := map[string]bool{}
	t.Cleanup(func() {
		// Every flag of every subcommand was given a value, so that a flag
		// added without a case here fails.
		for _, command := range []string{"", "sweep", "herd", "timeout", "seeds", "compare"} {
			name := command
			if name == "" {
				name = "run"
			}
			for _, f := range helpFlags(t, command) {
				if k := name + " -" + f; !given[k] && notGiven[k] == "" && f != "o" {
					t.Errorf("%s: no case gives it a value: add one to TestRecordHoldsEveryFlag", k)
				}
			}
		}
	})
	for _, c := range []struct {
		command string
		args    []string
	}{
		{"", []string{"-n", "7", "-l", "2", "-b", "poll", "-writer", "thread", "-route", "next", "-seed", "9", "-d", "200ms", "-i", "100ms",
			"-warmup", "0", "-latency", "-fd", "unix", "-churn", "1", "-delay", "1µs", "-cpu", "0", "-writers", "2", "-maxevents", "5",
			"-count", "2", "-format", "json"}},
		{"", []string{"-f", "-n", "5", "-writer", "self", "-d", "100ms", "-i", "50ms", "-warmup", "0", "-nest", "0", "-format", "json"}},
		{"", []string{"-b", "epoll", "-n", "6", "-l", "2", "-writer", "thread", "-readers", "2", "-share", "-nest", "1", "-d", "100ms", "-i", "50ms", "-warmup", "0",
			"-cpuprofile", filepath.Join(dir, "cpu.pb.gz"), "-v"}},
		{"", []string{"-n", "5", "-rate", "2500", "-d", "100ms", "-i", "50ms", "-warmup", "0", "-format", "json"}},
		{"sweep", []string{"-b", "epoll,poll", "-n", "5,6", "-l", "2,4", "-count", "2", "-d", "100ms", "-i", "50ms", "-warmup", "0",
			"-writer", "thread", "-route", "next", "-seed", "3", "-fd", "pipe", "-churn", "1", "-delay", "1µs", "-latency",
			"-writers", "1,2", "-readers", "1", "-pipes-per", "writer", "-unit", "ms", "-ratios", "poll/epoll", "-maxevents", "4", "-refine", "1.5", "-format", "json"}},
		{"herd", []string{"-waiters", "2", "-mode", "threads", "-exclusive", "on", "-n", "3", "-l", "2", "-d", "100ms", "-i", "50ms", "-warmup", "0", "-seed", "4", "-count", "2", "-format", "json"}},
		{"timeout", []string{"-timeouts", "50µs", "-mechanisms", "ppoll", "-samples", "3", "-slack", "1ns", "-count", "2", "-format", "json"}},
		{"seeds", []string{"-quick", "-count", "2", "-format", "json"}},
		{"compare", []string{"-by", "b", "-base", "poll", "-format", "json", "-plot", filepath.Join(dir, "c.svg"), "-check", "-metric", "tokens/sec",
			"-floor", "3%", "testdata/compare/a.json"}},
		{"sweep", []string{"-b", "epoll", "-n", "5", "-d", "100ms", "-i", "50ms", "-warmup", "0", "-nest", "1", "-cpu", "0",
			"-plot", filepath.Join(dir, "s.svg"), "-ref", "../../testdata/pipetest-2002.csv"}},
		{"sweep", []string{"-b", "epoll", "-n", "6", "-l", "2", "-writer", "thread", "-readers", "2", "-share", "-d", "100ms", "-i", "50ms", "-warmup", "0"}},
		{"sweep", []string{"-b", "epoll", "-n", "5", "-rate", "20%,50%", "-d", "100ms", "-i", "50ms", "-warmup", "0"}},
		// io_uring's minimum wait: where io_uring or the feature is
		// refused, the case is skipped, saying why.
		{"", []string{"-b", "uring-epoll", "-n", "5", "-l", "2", "-writer", "self", "-minwait", "50µs", "-d", "100ms", "-i", "50ms", "-warmup", "0", "-format", "json"}},
		{"sweep", []string{"-b", "uring,uring-epoll", "-n", "5", "-l", "2", "-writer", "self", "-minwait", "50µs", "-d", "100ms", "-i", "50ms", "-warmup", "0"}},
	} {
		name := c.command
		if name == "" {
			name = "run"
		}
		t.Run(name, func(t *testing.T) {
			args := append([]string{}, c.args...)
			if c.command != "" {
				args = append([]string{c.command}, args...)
			}
			args = append(args, "-o", out)
			if c.command == "compare" { // the records come last
				args = append(append([]string{c.command}, c.args[:len(c.args)-1]...), "-o", out, c.args[len(c.args)-1])
			}
			code, _, stderr := invoke(t, args...)
			if code != exitOK && strings.Contains(c.args[1], "uring") && strings.Contains(stderr, "io_uring") {
				for _, a := range c.args {
					if strings.HasPrefix(a, "-") {
						given[name+" "+a] = true // given, though this machine cannot run it
					}
				}
				t.Skipf("io_uring refused here: %s", stderr)
			}
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var rec record.Head
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Format != record.Format || rec.FormatVersion != record.Version || rec.Command != name {
				t.Errorf("head %q %d %q", rec.Format, rec.FormatVersion, rec.Command)
			}
			if c.command != "" {
				args = args[1:]
			}
			if strings.Join(rec.Args, " ") != strings.Join(args, " ") {
				t.Errorf("args %q, want %q", rec.Args, args)
			}
			if rec.Environment.Kernel == "" || rec.Pipebench.Module == "" {
				t.Errorf("no machine or build: %+v %+v", rec.Environment, rec.Pipebench)
			}
			for _, f := range helpFlags(t, c.command) {
				if _, ok := rec.Flags[f]; !ok {
					t.Errorf("-%s is not in the record", f)
				}
			}
			for i := 0; i < len(c.args); i++ {
				if !strings.HasPrefix(c.args[i], "-") {
					continue // compare's record
				}
				f := strings.TrimPrefix(c.args[i], "-")
				given[name+" -"+f] = true
				want := "true"
				if i+1 < len(c.args) && !strings.HasPrefix(c.args[i+1], "-") {
					want = c.args[i+1]
					i++
				}
				if got := rec.Flags[f]; got != want {
					t.Errorf("-%s: the record holds %q, want %q", f, got, want)
				}
			}
		})
	}
}

// notGiven are the flags TestRecordHoldsEveryFlag cannot give a value
// away from the default in a short test, and why; it still finds each in
// the record.
var notGiven = map[string]string{
	"run -kprofile": "needs perf allowed to record kernel samples (TestKernelProfile covers it)",
	"run -perfdata": "goes with -kprofile",
}

// helpFlags are the flags `pipebench COMMAND -h` lists.
func helpFlags(t *testing.T, command string) []string {
	args := []string{"-h"}
	if command != "" {
		args = []string{command, "-h"}
	}
	_, stdout, _ := invoke(t, args...)
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(stdout, -1) {
		flags = append(flags, m[1])
	}
	if len(flags) < 2 {
		t.Fatalf("no flags in the help of %q", command)
	}
	return flags
}

// The records sit-*.json under testdata/compare stand for sittings of one
// configuration on separate boots. They are made from run.json (its three
// runs twice over, six a record, intervals left out), every run's
// evts/sec, tokens/sec and CPU per token or event scaled by its sitting's
// factor and a run's jitter (1, 1.004, 0.996, 1.006, 0.994, 1.002): A1
// 1.000, A2 1.015, A3 1.006, A4 1.011, B1 0.930, B2 0.945, so that B is
// about 7% slower than A, sittings spread about 1%; B2's runs say that
// other programs used 0.3 of a CPU in their windows. The renders run from
// testdata/compare, so that the command line they end with stays short.
func TestCompareSittingsGolden(t *testing.T) {
	for _, c := range []struct{ name, args string }{
		{"sittings.text", "compare sit-a1.json sit-a2.json vs sit-b1.json sit-b2.json"},
		{"sittings-aa.text", "compare sit-a1.json sit-a2.json vs sit-a3.json sit-a4.json"},
		{"sittings.markdown", "compare -format markdown sit-a1.json sit-a2.json vs sit-b1.json sit-b2.json"},
		{"sittings-one-side.text", "compare sit-a1.json vs sit-b1.json sit-b2.json"},
		// Sweeps whose curves cross at known pipe counts (TestCrossRecords).
		{"cross.text", "compare cross-a.json cross-b.json"},
	} {
		var stdout string
		t.Run(c.name, func(t *testing.T) {
			t.Chdir("testdata/compare")
			var code int
			var stderr string
			code, stdout, stderr = invoke(t, strings.Fields(c.args)...)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
		})
		checkCompareGolden(t, c.name, stdout)
	}
}

// -check's exit status, for git bisect run: 1 when the primary figure got
// worse beyond the floor, 0 when it did not (better, or unchanged), 125
// when too few runs or sittings tell; and the line that says which.
func TestCompareCheckExitCodes(t *testing.T) {
	const dir = "testdata/compare/"
	for _, c := range []struct {
		args string
		code int
		says string
	}{
		{"compare -check sit-a1.json sit-a2.json vs sit-b1.json sit-b2.json", exitFailed, "compare -check: worse: "},
		{"compare -check sit-b1.json sit-b2.json vs sit-a1.json sit-a2.json", exitOK, "compare -check: not worse: "},
		{"compare -check sit-a1.json sit-a2.json vs sit-a3.json sit-a4.json", exitOK, "compare -check: not worse: "},
		{"compare -check run.json run.json", exitSkip, "compare -check: cannot tell: "},
		{"compare -check -floor 10% sit-a1.json sit-a2.json vs sit-b1.json sit-b2.json", exitOK, "compare -check: not worse: "},
		{"compare -check -metric syscalls/token sit-a1.json sit-a2.json vs sit-b1.json sit-b2.json", exitOK, "compare -check: not worse: "},
		{"compare -check -by b a.json", exitFailed, "compare -check: worse: -n 10 -l 1: poll vs epoll, evts/sec"},
		{"compare -check -by b -base poll a.json", exitOK, "compare -check: not worse: "},
	} {
		t.Run(c.args, func(t *testing.T) {
			var args []string
			for _, a := range strings.Fields(c.args) {
				if strings.HasSuffix(a, ".json") {
					a = dir + a
				}
				args = append(args, a)
			}
			code, stdout, stderr := invoke(t, args...)
			if code != c.code || !strings.HasPrefix(stderr, c.says) || strings.Count(stderr, "\n") != 1 || stdout == "" {
				t.Errorf("exit %d, stderr %q; want exit %d and a line starting %q after the tables", code, stderr, c.code, c.says)
			}
		})
	}
}

// compare's bad input, each one line and exit status 2 before any table.
func TestCompareBadInputGolden(t *testing.T) {
	for _, c := range []struct{ name, args string }{
		{"compare-side-empty", "compare vs testdata/compare/sit-b1.json"},
		{"compare-last-side-empty", "compare testdata/compare/sit-a1.json vs"},
		{"compare-middle-side-empty", "compare testdata/compare/sit-a1.json vs vs testdata/compare/sit-b1.json"},
		{"compare-metric-unknown", "compare -metric evts testdata/compare/sit-a1.json testdata/compare/sit-b1.json"},
		{"compare-floor-negative", "compare -floor -1% testdata/compare/sit-a1.json testdata/compare/sit-b1.json"},
		{"compare-floor-not-percent", "compare -floor two testdata/compare/sit-a1.json testdata/compare/sit-b1.json"},
		{"compare-floor-too-large", "compare -floor 100 testdata/compare/sit-a1.json testdata/compare/sit-b1.json"},
		{"compare-check-one-side", "compare -check testdata/compare/sit-a1.json"},
		{"compare-by-sides", "compare -by b testdata/compare/a.json vs testdata/compare/b.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stderr := badInput(t, c.args, "pipebench: compare: ")
			golden.Check(t, "errors/"+c.name+".golden", []byte("$ pipebench "+c.args+"\n"+stderr))
		})
	}
}
