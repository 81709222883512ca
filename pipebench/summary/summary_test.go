package summary_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
	"github.com/pipebench/pipebench/stats"
)

func TestSummarizeHandComputed(t *testing.T) {
	s := summary.Summarize(fixture.Result(), 1)
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
	if s := summary.Summarize(fixture.Result(), 0); s.EventsPerSec.N != 4 || s.EventsPerSec.Median != 105000 || s.Warmup != 0 {
		t.Errorf("-warmup 0 keeps every interval: %+v", s.EventsPerSec)
	}
	// A run that ended with no more intervals than the warm-up has nothing
	// after it: the warm-up is not kept, and the summary says so.
	for _, warmup := range []int{4, 10} {
		s := summary.Summarize(fixture.Result(), warmup)
		if s.EventsPerSec.N != 0 || s.Warmup != warmup || s.TokensPerSec != 0 {
			t.Errorf("-warmup %d over 4 intervals: %+v, tokens/sec %v", warmup, s.EventsPerSec, s.TokensPerSec)
		}
		if want := (summary.Warning{Kind: summary.NoIntervalAfterWarmup, Count: 4, Warmup: warmup}); len(s.Warnings) == 0 || s.Warnings[0] != want {
			t.Errorf("-warmup %d over 4 intervals: warnings %+v, want first %+v", warmup, s.Warnings, want)
		}
	}
}

func TestSummarizeRuns(t *testing.T) {
	a := summary.SummarizeRuns([]summary.Run{
		{Summary: summary.Summary{EventsPerSec: stats.Sample{N: 3, Median: 100}}},
		{Summary: summary.Summary{EventsPerSec: stats.Sample{N: 3, Median: 200}}},
		{Summary: summary.Summary{EventsPerSec: stats.Sample{N: 2, Median: 1000}}, LeftOut: "failed"},
	})
	if a.Runs != 3 || a.Summarized != 2 || a.LeftOut != 1 || a.EventsPerSec.N != 2 || a.EventsPerSec.Median != 150 {
		t.Errorf("across runs %+v", a)
	}
}

// checkRestAddsUp checks that the rows of a process's threads (the last
// being its rest) add up to the process's row.
func checkRestAddsUp(t *testing.T, threads []summary.Cost, process summary.Cost) {
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
		res := fixture.Result()
		res.Process = res.Process.Add(pipebench.Usage{System: 30 * time.Millisecond})
		s := summary.Summarize(res, 1)
		// 38 ms of 940 ms: 4.0%.
		if got := warningsOf(s, summary.BusyRest); len(got) != 1 || got[0].Who != "process" || math.Abs(got[0].Value-38.0/940) > 1e-12 || got[0].Limit != summary.RestShare {
			t.Errorf("warnings %+v, want one about the process's other threads at 38/940", s.Warnings)
		}
		if got := warningsOf(summary.Summarize(fixture.Result(), 1), summary.BusyRest); len(got) != 0 {
			t.Errorf("rest under 1%%: warnings %+v, want none", got)
		}
	})
	t.Run("WriterProcess", func(t *testing.T) {
		res := fixture.Result()
		res.Setup.Writer = pipebench.WriterProcess
		res.Process = res.ReaderThread.Add(fixture.Rest)
		res.WriterProcess = res.WriterThread.Add(pipebench.Usage{User: time.Millisecond, Voluntary: 100})
		s := summary.Summarize(res, 1)
		var who []string
		for _, c := range s.Costs {
			who = append(who, c.Who)
		}
		if strings.Join(who, ",") != "reader thread,writer thread,rest,process,writer rest,writer process" {
			t.Fatalf("process mode cost rows %q", who)
		}
		checkRestAddsUp(t, []summary.Cost{s.Costs[0], s.Costs[2]}, s.Costs[3])
		checkRestAddsUp(t, []summary.Cost{s.Costs[1], s.Costs[4]}, s.Costs[5])
	})
	t.Run("ReadsOnGoroutines", func(t *testing.T) {
		res := fixture.Result()
		res.Setup.ReadsOnGoroutines = true
		res.Process = res.Process.Add(pipebench.Usage{System: time.Second})
		s := summary.Summarize(res, 1)
		if s.Costs[2].Who != "goroutines" {
			t.Errorf("with reads on goroutines the other threads are named %q, want goroutines", s.Costs[2].Who)
		}
		if got := warningsOf(s, summary.BusyRest); len(got) != 0 {
			t.Errorf("goroutines that read are the reading, not overhead: warnings %+v", got)
		}
	})
}

func TestLateWarning(t *testing.T) {
	res := fixture.Result()
	if w := warningsOf(summary.Summarize(res, 1), summary.LateInterval); len(w) != 0 {
		t.Errorf("intervals at most 4 ms late of 1 s: warnings %+v, want none", w)
	}
	res.Intervals[2].Late = 11 * time.Millisecond
	want := summary.Warning{Kind: summary.LateInterval, Interval: 3, Late: 11 * time.Millisecond, Limit: summary.LateShare}
	if w := warningsOf(summary.Summarize(res, 1), summary.LateInterval); len(w) != 1 || w[0] != want {
		t.Errorf("interval 3 11 ms late of 1 s: warnings %+v, want %+v", w, want)
	}
}

// TestReadersHandComputed: the per-reader figures of a run whose three
// readers took a half, a quarter and a quarter of every interval's events:
// over the 3 s after warm-up, 165000, 82500 and 82500 events, that is
// 55000, 27500 and 27500 evts/sec, 110000 in all; their standard deviation
// is a third of the mean times the square root of 3 (27500/sqrt(3) over
// 110000/3), and that over the square root of 3 a quarter exactly.
func TestReadersHandComputed(t *testing.T) {
	res := fixture.Result()
	res.Readers = make([]pipebench.ReaderResult, 3)
	for i := range res.Intervals {
		e := res.Intervals[i].Events
		res.Intervals[i].Readers = []uint64{e / 2, e / 4, e / 4}
	}
	r := summary.Summarize(res, 1).Readers
	if r == nil {
		t.Fatal("no per-reader figures for three readers")
	}
	want := []float64{55000, 27500, 27500}
	for k, x := range r.EventsPerSec {
		if math.Abs(x-want[k]) > 1e-9 {
			t.Errorf("reader %d: %v evts/sec, want %v", k, x, want[k])
		}
	}
	if math.Abs(r.Total-110000) > 1e-9 || math.Abs(r.Mean-110000.0/3) > 1e-9 {
		t.Errorf("total %v, mean %v; want 110000, %v", r.Total, r.Mean, 110000.0/3)
	}
	if math.Abs(r.RelStdDev-math.Sqrt(3)/4) > 1e-12 || math.Abs(r.RelStdErr-0.25) > 1e-12 {
		t.Errorf("relative sd %v, of the mean %v; want %v, 0.25", r.RelStdDev, r.RelStdErr, math.Sqrt(3)/4)
	}
	if summary.Summarize(fixture.Result(), 1).Readers != nil {
		t.Error("per-reader figures for a run of one reader and one writer")
	}
}
