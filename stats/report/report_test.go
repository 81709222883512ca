package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/pipebench/pipebench/internal/envinfo"
	"github.com/pipebench/pipebench/internal/golden"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// fixture is a hand-made result: 4 intervals of 1 s with known counts.
func fixture() *pipebench.Result {
	res := &pipebench.Result{
		Setup: pipebench.Setup{Pipes: 1000, Backend: "epoll", Writer: pipebench.WriterThread, InFlight: 10, Interval: time.Second,
			Took: 25 * time.Millisecond, ReaderFDs: 2010, Limit: 20000},
		Elapsed: 4 * time.Second,
	}
	events := []uint64{90000, 100000, 110000, 120000}
	var tot pipebench.Counts
	for i, e := range events {
		c := pipebench.Counts{Events: e, Tokens: e + e/10, Calls: e / 5, EmptyCalls: 2, WaitSyscalls: e / 10, Reads: e, Writes: e / 5}
		res.Intervals = append(res.Intervals, pipebench.Interval{Index: i + 1, Seconds: 1, Counts: c, Late: time.Duration(i+1) * time.Millisecond,
			EventsPerSec: float64(e), TokensPerSec: float64(c.Tokens), SamplesPerCall: float64(e) / float64(c.Calls-2)})
		tot.Events += c.Events
		tot.Tokens += c.Tokens
		tot.Calls += c.Calls
		tot.EmptyCalls += c.EmptyCalls
		tot.WaitSyscalls += c.WaitSyscalls
		tot.Reads += c.Reads
		tot.Writes += c.Writes
	}
	res.Totals = tot
	res.Tokens = pipebench.Tokens{Sent: tot.Tokens + 7, Received: tot.Tokens, Drained: 7}
	res.WriterWrites = tot.Tokens + 7
	res.WriterReads, res.WriterWaits = tot.Events/10, tot.Events/20
	res.PerCall = stats.NewHist(uint64(res.Setup.Pipes))
	for range tot.Calls - tot.EmptyCalls {
		res.PerCall.Record(5)
	}
	for range tot.EmptyCalls {
		res.PerCall.Record(0)
	}
	res.ReaderThread = pipebench.Usage{User: 42 * time.Millisecond, System: 420 * time.Millisecond, Voluntary: 4000, Involuntary: 40}
	res.WriterThread = pipebench.Usage{User: 40 * time.Millisecond, System: 400 * time.Millisecond, Voluntary: 8000, Involuntary: 80}
	res.Process = res.ReaderThread.Add(res.WriterThread).Add(fixtureRest)
	return res
}

// fixtureRest is what the fixture's other threads (the Go runtime) used.
var fixtureRest = pipebench.Usage{User: 3 * time.Millisecond, System: 5 * time.Millisecond, Voluntary: 300, Involuntary: 30}

func fixtureDoc() *Document {
	cfg := pipebench.Config{Pipes: 1000, InFlight: 10, Writer: pipebench.WriterAuto, Duration: 4 * time.Second, Interval: time.Second, Seed: 1,
		Backend: &pipebench.Factory{Name: "epoll"}}
	d := &Document{Tool: "pipebench", Started: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), Config: NewConfig(&cfg, 1, 1),
		Environment: envinfo.Environment{Kernel: "6.1.0", Arch: "amd64", CPUModel: "Test CPU", Cores: 2, GoVersion: "go1.26.8",
			GOMAXPROCS: 2, FDSoft: 20000, FDHard: 20000, ClockSource: "tsc", Mitigations: map[string]string{"meltdown": "Not affected"}}}
	return d
}

func TestSummarizeHandComputed(t *testing.T) {
	s := Summarize(fixture(), 1)
	// After warm-up: 100000, 110000, 120000.
	e := s.EventsPerSec
	if e.N != 3 || e.Median != 110000 || e.Mean != 110000 || e.Min != 100000 || e.Max != 120000 {
		t.Errorf("evts/sec summary %+v", e)
	}
	if math.Abs(e.StdDev-10000) > 1e-9 {
		t.Errorf("sd %v, want 10000", e.StdDev)
	}
	// t(0.975, 2) = 4.302653: CI = 110000 ± 4.302653*10000/sqrt(3).
	if half := 4.302653 * 10000 / math.Sqrt(3); math.Abs(e.CIHigh-110000-half) > 1 {
		t.Errorf("CI %v..%v, want ±%v", e.CILow, e.CIHigh, half)
	}
	if s.Warmup != 1 {
		t.Errorf("warm-up %d", s.Warmup)
	}
	// 84000 readiness calls for 420000 events.
	if math.Abs(s.CallsPerEvent-0.2) > 1e-9 {
		t.Errorf("calls/event %v, want 0.2", s.CallsPerEvent)
	}
	// 42000 wait syscalls; 420000 reads and 42000 by the writer; 84000
	// credit words and 462007 token writes; 21000 waits for credits.
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"wait syscalls", s.WaitSyscallsPerEvent, 0.1},
		{"reads", s.ReadsPerEvent, 1.1},
		{"writes", s.WritesPerEvent, (84000 + 462007) / 420000.0},
		{"writer waits", s.WriterWaitsPerEvent, 0.05},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s per event %v, want %v", c.what, c.got, c.want)
		}
	}
	if s.PerCall.P50 != 5 || s.PerCall.Max != 5 || s.PerCall.Empty != 8 {
		t.Errorf("per call %+v", s.PerCall)
	}
	reader := s.Costs[0]
	if reader.Who != "reader thread" || math.Abs(*reader.SystemPerEvent-1000) > 1e-9 || math.Abs(reader.VoluntaryPerSec-1000) > 1e-9 {
		t.Errorf("reader cost %+v, want 1000 ns sys/event and 1000 vol cs/s", reader)
	}
	if math.Abs(reader.CPUPerEvent-1100) > 1e-9 {
		t.Errorf("reader cpu/event %v, want 1100 ns", reader.CPUPerEvent)
	}
	var who []string
	for _, c := range s.Costs {
		who = append(who, c.Who)
	}
	if strings.Join(who, ",") != "reader thread,writer thread,rest,process" {
		t.Fatalf("thread mode cost rows %q, want reader thread, writer thread, rest, process", who)
	}
	checkRestAddsUp(t, s.Costs[:3], s.Costs[3])
	// 8 ms of the rest over 420000 events.
	if rest := s.Costs[2]; math.Abs(rest.CPUPerEvent-8e6/420000) > 1e-9 || rest.UserPerEvent != nil || rest.SystemPerEvent != nil {
		t.Errorf("rest %+v: want %v ns cpu/event and no user/system split", rest, 8e6/420000)
	}
	if s.Latency != nil {
		t.Error("latency reported without latency mode")
	}
}

func TestSummarizeWarmupRule(t *testing.T) {
	if s := Summarize(fixture(), 0); s.EventsPerSec.N != 4 || s.EventsPerSec.Median != 105000 || s.Warmup != 0 {
		t.Errorf("-warmup 0 keeps every interval: %+v", s.EventsPerSec)
	}
	// A run that ended with no more intervals than the warm-up has nothing
	// after it: the warm-up is not kept, and the summary says so.
	for _, warmup := range []int{4, 10} {
		s := Summarize(fixture(), warmup)
		if s.EventsPerSec.N != 0 || s.Warmup != warmup || s.TokensPerSec != 0 {
			t.Errorf("-warmup %d over 4 intervals: %+v, tokens/sec %v", warmup, s.EventsPerSec, s.TokensPerSec)
		}
		if len(s.Warnings) == 0 || !strings.Contains(s.Warnings[0], "no interval after warm-up: the run ended after 4 intervals") {
			t.Errorf("-warmup %d over 4 intervals: warnings %q", warmup, s.Warnings)
		}
	}
}

func TestSummarizeRuns(t *testing.T) {
	a := SummarizeRuns([]Run{
		{Summary: Summary{EventsPerSec: stats.Summary{N: 3, Median: 100}}},
		{Summary: Summary{EventsPerSec: stats.Summary{N: 3, Median: 200}}},
		{Summary: Summary{EventsPerSec: stats.Summary{N: 2, Median: 1000}}, LeftOut: "failed"},
	})
	if a.Runs != 3 || a.Summarized != 2 || a.LeftOut != 1 || a.EventsPerSec.N != 2 || a.EventsPerSec.Median != 150 {
		t.Errorf("across runs %+v", a)
	}
}

// render runs a whole document through format.
func render(t *testing.T, format string, d *Document, res *pipebench.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := New(format, &b)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(d); err != nil {
		t.Fatal(err)
	}
	w.Setup(1, res.Setup)
	for _, iv := range res.Intervals {
		if err := w.Interval(1, iv); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.RunDone(d.AddRun(res, nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFormatsGolden(t *testing.T) {
	for _, f := range Formats {
		t.Run(f, func(t *testing.T) {
			golden.Check(t, "fixture."+f, render(t, f, fixtureDoc(), fixture()))
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	b := render(t, "json", fixtureDoc(), fixture())
	var d Document
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	again, err := json.MarshalIndent(&d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(b), bytes.TrimSpace(again)) {
		t.Errorf("json does not round-trip:\n%s\n---\n%s", b, again)
	}
	if d.Runs[0].Setup.Writer != pipebench.WriterThread || d.Config.Writer != pipebench.WriterAuto {
		t.Errorf("writer modes lost: %v %v", d.Runs[0].Setup.Writer, d.Config.Writer)
	}
}

func TestBenchFormatParses(t *testing.T) {
	b := render(t, "bench", fixtureDoc(), fixture())
	r := benchfmt.NewReader(bytes.NewReader(b), "fixture.bench")
	var n int
	for r.Scan() {
		rec, ok := r.Result().(*benchfmt.Result)
		if !ok {
			if e, isErr := r.Result().(*benchfmt.SyntaxError); isErr {
				t.Fatalf("benchfmt: %v", e)
			}
			continue
		}
		n++
		if !strings.Contains(string(rec.Name.Full()), "backend=epoll/pipes=1000") {
			t.Errorf("name %s", rec.Name.Full())
		}
		if v, ok := rec.Value("evts/sec"); !ok || v < 100000 {
			t.Errorf("evts/sec %v %v", v, ok)
		}
		if rec.GetConfig("kernel") != "6.1.0" {
			t.Errorf("kernel config %q", rec.GetConfig("kernel"))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d results, want one per run (1)", n)
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := New("xml", nil); err == nil || !strings.Contains(err.Error(), "text, json, csv or bench") {
		t.Errorf("got %v", err)
	}
}

// checkRestAddsUp checks that the rows of a process's threads (the last
// being its rest) add up to the process's row.
func checkRestAddsUp(t *testing.T, threads []Cost, process Cost) {
	t.Helper()
	var cpu, vol, invol float64
	for _, c := range threads {
		cpu += c.CPUPerEvent
		vol += c.VoluntaryPerEvent
		invol += c.InvoluntaryPerEvent
	}
	if math.Abs(cpu-process.CPUPerEvent) > 1e-6 || math.Abs(vol-process.VoluntaryPerEvent) > 1e-9 || math.Abs(invol-process.InvoluntaryPerEvent) > 1e-9 {
		t.Errorf("threads and rest add up to cpu %v, vol %v, invol %v per event; the process row says %v, %v, %v",
			cpu, vol, invol, process.CPUPerEvent, process.VoluntaryPerEvent, process.InvoluntaryPerEvent)
	}
}

func TestRestRows(t *testing.T) {
	t.Run("WarnsAboveShare", func(t *testing.T) {
		res := fixture()
		res.Process = res.Process.Add(pipebench.Usage{System: 30 * time.Millisecond})
		s := Summarize(res, 1)
		// 38 ms of 940 ms: 4.0%.
		if got := restWarningsOf(s); len(got) != 1 || !strings.Contains(got[0], "4.0%") {
			t.Errorf("warnings %q, want one about the process's other threads at 4.0%%", s.Warnings)
		}
		if got := restWarningsOf(Summarize(fixture(), 1)); len(got) != 0 {
			t.Errorf("rest under 1%%: warnings %q, want none", got)
		}
	})
	t.Run("WriterProcess", func(t *testing.T) {
		res := fixture()
		res.Setup.Writer = pipebench.WriterProcess
		res.Process = res.ReaderThread.Add(fixtureRest)
		res.WriterProcess = res.WriterThread.Add(pipebench.Usage{User: time.Millisecond, Voluntary: 100})
		s := Summarize(res, 1)
		var who []string
		for _, c := range s.Costs {
			who = append(who, c.Who)
		}
		if strings.Join(who, ",") != "reader thread,writer thread,rest,process,writer rest,writer process" {
			t.Fatalf("process mode cost rows %q", who)
		}
		checkRestAddsUp(t, []Cost{s.Costs[0], s.Costs[2]}, s.Costs[3])
		checkRestAddsUp(t, []Cost{s.Costs[1], s.Costs[4]}, s.Costs[5])
	})
	t.Run("Driver", func(t *testing.T) {
		res := fixture()
		res.Setup.Driver = true
		res.Process = res.Process.Add(pipebench.Usage{System: time.Second})
		s := Summarize(res, 1)
		if s.Costs[2].Who != "goroutines" {
			t.Errorf("a Driver's other threads are named %q, want goroutines", s.Costs[2].Who)
		}
		if got := restWarningsOf(s); len(got) != 0 {
			t.Errorf("a Driver backend's goroutines are its reading, not overhead: warnings %q", got)
		}
	})
}

// restWarningsOf picks a summary's warnings about the other threads.
func restWarningsOf(s Summary) []string {
	var got []string
	for _, w := range s.Warnings {
		if strings.Contains(w, "threads other than the reader and writer") {
			got = append(got, w)
		}
	}
	return got
}

func TestLateWarning(t *testing.T) {
	res := fixture()
	if w := lateWarning(res); w != "" {
		t.Errorf("intervals at most 4 ms late of 1 s: warning %q, want none", w)
	}
	res.Intervals[2].Late = 11 * time.Millisecond
	if w := lateWarning(res); !strings.Contains(w, "interval 3 was counted 11ms after its boundary") {
		t.Errorf("interval 3 11 ms late of 1 s: warning %q", w)
	}
}
