package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/pipebench/pipebench/experiment/report"
)

const shortRun = "-n 20 -l 2 -writer self -d 500ms -i 100ms"

// invariantRuns are the real short runs whose every format's output is
// checked: backends and writer modes.
var invariantRuns = []string{
	"-b epoll -writer self", "-b epoll -writer thread", "-b poll -writer self",
	"-b poll -writer thread", "-b select -writer self", "-b select -writer thread",
}

// TestOutputFormats writes real runs in each format and reads each back
// as its readers do: json (the whole document, every run's result holding
// its invariants, Result.CheckValid), text (a block per run and the summary
// across them), bench (benchstat's reader, benchfmt: a line per run, or a
// comment for a run left out that stderr names too) and csv (a row per
// interval, the warm-up column, the rates against the counts).
func TestOutputFormats(t *testing.T) {
	for _, run := range invariantRuns {
		args := "-n 20 -l 3 -d 400ms -i 100ms " + run
		t.Run(strings.ReplaceAll(run, " ", ""), func(t *testing.T) {
			code, stdout, stderr := invoke(t, strings.Fields(args+" -format json -count 2")...)
			if code != exitOK {
				t.Fatalf("json: exit %d: %s", code, stderr)
			}
			var d report.Doc
			if err := json.Unmarshal([]byte(stdout), &d); err != nil {
				t.Fatalf("not one JSON document: %v\n%s", err, stdout)
			}
			if len(d.Runs) != 2 || d.Config.Count != 2 || d.Environment.Kernel == "" {
				t.Fatalf("document: %d runs, count %d, kernel %q", len(d.Runs), d.Config.Count, d.Environment.Kernel)
			}
			for _, r := range d.Runs {
				if err := r.Result.CheckValid(); err != nil {
					t.Errorf("json run %d: %v", r.Index, err)
				}
			}

			code, stdout, stderr = invoke(t, strings.Fields(args+" -count 2")...)
			if code != exitOK {
				t.Fatalf("text: exit %d: %s", code, stderr)
			}
			if strings.Count(stdout, "\n=== run ") != 1 || strings.Count(stdout, "\n--- ") != 2 || !strings.Contains(stdout, "\n=== 2 runs, ") {
				t.Errorf("text output, want two runs' blocks and the summary across them:\n%s", stdout)
			}

			code, stdout, stderr = invoke(t, strings.Fields(args+" -format bench -count 3")...)
			if code != exitOK {
				t.Fatalf("bench: exit %d: %s", code, stderr)
			}
			// A line per run, or a comment for a run left out (a stall of
			// this shared machine can leave a run without events).
			if lines, missing := benchLines(t, []byte(stdout)); lines+missing != 3 || lines == 0 {
				t.Errorf("bench output, want a result line per run (3):\n%s", stdout)
			} else if missing != strings.Count(stderr, "has no bench line") {
				t.Errorf("%d runs left out, stderr says %q", missing, stderr)
			}

			code, stdout, stderr = invoke(t, strings.Fields(args+" -format csv")...)
			if code != exitOK {
				t.Fatalf("csv: exit %d: %s", code, stderr)
			}
			checkCSV(t, stdout, 4, 1)
		})
	}
}

// benchComment is the line the bench format writes for a run left out.
var benchComment = regexp.MustCompile(`(?m)^# run [0-9]+: no result line: .+$`)

// benchLines reads a bench output as benchstat does (benchfmt): its
// result lines, each with events and a positive evts/sec, and the comment
// lines of the runs left out.
func benchLines(t *testing.T, out []byte) (lines, missing int) {
	t.Helper()
	rd := benchfmt.NewReader(bytes.NewReader(out), "bench")
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("benchfmt: %v", rec)
		case *benchfmt.Result:
			if v, ok := rec.Value("evts/sec"); !ok || v <= 0 || rec.Iters <= 0 {
				t.Errorf("%s: %d events at %v evts/sec", rec.Name.Full(), rec.Iters, v)
			}
			lines++
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, len(benchComment.FindAll(out, -1))
}

// checkCSV checks a csv output of one run: a header and a row per interval,
// the first warmup marked as warm-up, each row's rates from its counts.
func checkCSV(t *testing.T, out string, intervals, warmup int) {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != intervals+1 || strings.Join(rows[0], ",") != strings.Join(report.CSVHeader, ",") {
		t.Fatalf("want a header and %d interval rows, got %d rows: %v", intervals, len(rows), rows)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for i, row := range rows[1:] {
		num := func(name string) float64 { x, _ := strconv.ParseFloat(row[col[name]], 64); return x }
		want := "0"
		if i < warmup {
			want = "1"
		}
		if row[col["interval"]] != strconv.Itoa(i+1) || row[col["warmup"]] != want {
			t.Errorf("row %d: interval %s warmup %s, want %d %s", i+1, row[col["interval"]], row[col["warmup"]], i+1, want)
		}
		if got, rate := num("evts_per_sec"), num("events")/num("seconds"); math.Abs(got-rate) > 1e-9*rate {
			t.Errorf("row %d: %v evts/sec, %v events in %v s", i+1, got, num("events"), num("seconds"))
		}
		if full := num("calls") - num("empty_calls"); full > 0 {
			if got, spc := num("samples_per_call"), num("events")/full; math.Abs(got-spc) > 1e-9*spc {
				t.Errorf("row %d: %v samples per call, %v events in %v full calls", i+1, got, num("events"), full)
			}
		}
	}
}

func TestCSVOneRowPerInterval(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	code, stdout, stderr := invoke(t, strings.Fields(shortRun+" -format csv -o "+path)...)
	if code != exitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkCSV(t, string(b), 5, 1)
}

func TestOutputFileCheckedBeforeRun(t *testing.T) {
	code, stdout, stderr := invoke(t, "-o", "/nonexistent/dir/out.txt")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "-o /nonexistent/dir/out.txt: cannot write there") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestBenchstatAcceptsTwoRuns feeds two -format bench -count outputs to
// benchstat itself (golang.org/x/perf/cmd/benchstat, built from the module
// cache), as docs/output.md's benchstat recipe does: two kernels, hence
// -ignore kernel.
func TestBenchstatAcceptsTwoRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds benchstat")
	}
	dir := t.TempDir()
	var files []string
	// Before and after, as a kernel patch would be judged: the same run
	// twice, the second file saying it ran on another kernel.
	for _, name := range []string{"old", "new"} {
		p := filepath.Join(dir, name+".txt")
		if code, _, stderr := invoke(t, strings.Fields("-n 20 -l 2 -writer self -d 400ms -i 100ms -count 3 -b epoll -format bench -o "+p)...); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if lines, missing := benchLines(t, b); lines+missing != 3 || lines == 0 {
			t.Fatalf("%s: want a result line per run (3):\n%s", name, b)
		}
		if name == "new" {
			b = regexp.MustCompile(`(?m)^kernel: .*$`).ReplaceAll(b, []byte("kernel: 9.9.9-patched"))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		files = append(files, p)
	}
	bin := filepath.Join(dir, "benchstat")
	if out, err := exec.Command("go", "build", "-o", bin, "golang.org/x/perf/cmd/benchstat").CombinedOutput(); err != nil {
		t.Fatalf("build benchstat: %v\n%s", err, out)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "-ignore", "kernel", files[0], files[1])
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "benchmark set differs") {
		t.Errorf("benchstat did not match the two runs' benchmarks:\n%s", out.String())
	}
	// benchstat shows ns/event as sec/event, and n: a sample per run.
	for _, want := range []string{"Pipes/backend=epoll/pipes=20/inflight=2/writer=self", "evts/sec", "sec/event", "samples/call", "vs base", " n="} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("benchstat output lacks %q:\n%s", want, out.String())
		}
	}
}

// stopAt is an output that closes stop once it has seen trigger, and what
// follows it in the same write.
type stopAt struct {
	bytes.Buffer
	trigger *regexp.Regexp
	stop    chan struct{}
}

func (w *stopAt) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if w.trigger != nil && w.trigger.Match(w.Bytes()) {
		close(w.stop)
		w.trigger = nil
	}
	return n, err
}

// TestAcrossRunsLeavesOutInterrupted: a run interrupted before its
// duration is reported, but left out of the summary across runs, which
// says so; the bench format gives it no line and says so on stderr.
func TestAcrossRunsLeavesOutInterrupted(t *testing.T) {
	// Interrupted at run 2's second interval line.
	out := &stopAt{trigger: regexp.MustCompile(`=== run 2 of 3\n.*\n[0-9]+ evts/sec.*\n[0-9]+ evts/sec`), stop: make(chan struct{})}
	var stderr bytes.Buffer
	code := command(strings.Fields("-n 20 -l 2 -writer self -d 1s -i 100ms -count 3"), out, &stderr, out.stop)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	text := out.String()
	if want := regexp.MustCompile(`(?m)^=== 2 runs, 1 left out \(run 2: interrupted\)\nevts/sec +[0-9]+, the one run summarised$`); !want.MatchString(text) {
		t.Errorf("the across-runs line does not match %s:\n%s", want, text)
	}

	// The bench format has no line to show the run in: it says so.
	stop := make(chan struct{})
	timer := time.AfterFunc(1500*time.Millisecond, func() { close(stop) })
	defer timer.Stop()
	var bench bytes.Buffer
	stderr.Reset()
	code = command(strings.Fields("-n 20 -l 2 -writer self -d 3s -i 100ms -count 2 -format bench"), &bench, &stderr, stop)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if lines, _ := benchLines(t, bench.Bytes()); lines != 0 || !strings.Contains(bench.String(), "\n# run 1: no result line: interrupted\n") {
		t.Errorf("bench output of an interrupted run, want no result line and a comment:\n%s", bench.String())
	}
	if want := "pipebench: run 1 of 2 has no bench line: interrupted\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// TestWarmupRuleUntilInterrupted: a run until interrupted (-d 0) that
// ends within its warm-up keeps no warm-up interval and says so.
func TestWarmupRuleUntilInterrupted(t *testing.T) {
	out := &stopAt{trigger: regexp.MustCompile(`(?m)^[0-9]+ evts/sec`), stop: make(chan struct{})}
	var stderr bytes.Buffer
	if code := command(strings.Fields("-n 20 -l 2 -writer self -d 0 -i 100ms -warmup 50 -v"), out, &stderr, out.stop); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := regexp.MustCompile(`(?m)^evts/sec +none after warm-up: the run ended after [0-9]+ intervals? \(-warmup 50\)$`); !want.MatchString(out.String()) {
		t.Errorf("output does not match %s:\n%s", want, out.String())
	}
	if !strings.Contains(out.String(), "tokens/sec     n/a\n") {
		t.Errorf("tokens/sec over no interval:\n%s", out.String())
	}
}

// TestRefusalKeepsOutputFile: a run refused before any work (here, by the
// descriptor limit) must not truncate the -o file of an earlier result.
func TestRefusalKeepsOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "earlier.txt")
	if err := os.WriteFile(path, []byte("an earlier result\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := invoke(t, "-n", "15000", "-writer", "self", "-format", "csv", "-o", path)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "descriptors") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != "an earlier result\n" {
		t.Errorf("the refused run changed %s to %q", path, b)
	}
	code, stdout, _ = invoke(t, "-n", "15000", "-writer", "self", "-format", "bench")
	if code != exitUsage || stdout != "" {
		t.Errorf("a refused run printed %q to stdout (exit %d)", stdout, code)
	}
}
