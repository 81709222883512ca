package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/report"
	"github.com/pipebench/pipebench/stats"
)

const shortRun = "-n 20 -l 2 -writer self -d 500ms -i 100ms"

func TestJSONSummaryAgreesWithIntervals(t *testing.T) {
	code, stdout, stderr := invoke(t, strings.Fields(shortRun+" -format json -count 2")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var d report.Document
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, stdout)
	}
	if len(d.Runs) != 2 || d.Config.Count != 2 || d.Environment.Kernel == "" {
		t.Fatalf("document: %d runs, count %d, kernel %q", len(d.Runs), d.Config.Count, d.Environment.Kernel)
	}
	var medians []float64
	for _, r := range d.Runs {
		// Recompute the summary from the run's own intervals.
		var xs []float64
		for _, iv := range r.Intervals[d.Config.Warmup:] {
			xs = append(xs, iv.EventsPerSec)
		}
		want := stats.Summarize(xs, report.NoisyCV)
		got := r.Summary.EventsPerSec
		if got.N != want.N || got.Median != want.Median || got.Mean != want.Mean || got.CILow != want.CILow || got.CIHigh != want.CIHigh {
			t.Errorf("run %d: summary %+v, recomputed %+v", r.Index, got, want)
		}
		var events uint64
		for _, iv := range r.Intervals {
			events += iv.Events
		}
		if events > r.Totals.Events {
			t.Errorf("run %d: intervals hold %d events, totals %d", r.Index, events, r.Totals.Events)
		}
		if r.Tokens.Lost != 0 || r.Tokens.Sent != r.Tokens.Received+r.Tokens.Drained {
			t.Errorf("run %d: tokens %+v", r.Index, r.Tokens)
		}
		medians = append(medians, got.Median)
	}
	if across := stats.Summarize(medians, report.NoisyCV); across.Median != d.Summary.EventsPerSec.Median {
		t.Errorf("across runs %v, recomputed %v", d.Summary.EventsPerSec.Median, across.Median)
	}
}

func TestCSVOneRowPerInterval(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	code, stdout, stderr := invoke(t, strings.Fields(shortRun+" -format csv -o "+path)...)
	if code != exitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 || strings.Join(rows[0], ",") != strings.Join(report.CSVHeader, ",") {
		t.Fatalf("want a header and 5 interval rows, got %d rows: %v", len(rows), rows)
	}
}

func TestOutputFileCheckedBeforeRun(t *testing.T) {
	code, stdout, stderr := invoke(t, "-o", "/nonexistent/dir/out.txt")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "-o /nonexistent/dir/out.txt: cannot write there") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestBenchstatAcceptsTwoRuns feeds two -format bench outputs to benchstat
// itself (golang.org/x/perf/cmd/benchstat, built from the module cache).
func TestBenchstatAcceptsTwoRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds benchstat")
	}
	dir := t.TempDir()
	var files []string
	// Before and after, as a kernel patch would be judged: the same run twice.
	for _, name := range []string{"old", "new"} {
		p := filepath.Join(dir, name+".txt")
		if code, _, stderr := invoke(t, strings.Fields(shortRun+" -b epoll -format bench -o "+p)...); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		files = append(files, p)
	}
	bin := filepath.Join(dir, "benchstat")
	if out, err := exec.Command("go", "build", "-o", bin, "golang.org/x/perf/cmd/benchstat").CombinedOutput(); err != nil {
		t.Fatalf("build benchstat: %v\n%s", err, out)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, files[0], files[1])
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "benchmark set differs") {
		t.Errorf("benchstat did not match the two runs' benchmarks:\n%s", out.String())
	}
	// benchstat shows ns/event as sec/event.
	for _, want := range []string{"Pipes/backend=epoll/pipes=20/inflight=2/writer=self", "evts/sec", "sec/event", "samples/call", "vs base"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("benchstat output lacks %q:\n%s", want, out.String())
		}
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
