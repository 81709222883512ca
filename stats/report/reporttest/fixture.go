package reporttest

import (
	"github.com/pipebench/pipebench/experiment/record"
	"time"

	"github.com/pipebench/pipebench/internal/envinfo"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
	"github.com/pipebench/pipebench/stats/report"
)

// Fixture is a hand-made result: 4 intervals of 1 s with known counts. It
// holds every invariant of a result (pipebench.Result.CheckValid; the
// tests that render it check).
func Fixture() *pipebench.Result {
	res := &pipebench.Result{
		Setup: pipebench.Setup{Config: pipebench.Config{Pipes: 1000, Backend: &pipebench.Factory{Name: "epoll"}, Writer: pipebench.WriterThread, InFlight: 10,
			Duration: 4 * time.Second, Interval: time.Second, Seed: 1, Readers: 1, Writers: 1},
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
	res.Process = res.ReaderThread.Add(res.WriterThread).Add(FixtureRest)
	// 0.7 halts per event on two CPUs, unpinned: the run the halts warning
	// is for.
	halts := uint64(294000)
	res.Halts = pipebench.Halts{CPUs: []int{0, 1}, Entries: &halts}
	return res
}

// FixtureRest is what the fixture's other threads (the Go runtime) used.
var FixtureRest = pipebench.Usage{User: 3 * time.Millisecond, System: 5 * time.Millisecond, Voluntary: 300, Involuntary: 30}

// FixtureDoc is a document with no run yet, configured as Fixture ran.
func FixtureDoc() *report.Document {
	cfg := pipebench.Config{Pipes: 1000, InFlight: 10, Writer: pipebench.WriterAuto, Duration: 4 * time.Second, Interval: time.Second, Seed: 1,
		Backend: &pipebench.Factory{Name: "epoll"}}
	d := &report.Document{Head: record.Head{Format: record.Format, FormatVersion: record.Version, Tool: "pipebench",
		Command: "run", Args: []string{"-n", "1000", "-l", "10", "-d", "4s"},
		Flags:     map[string]string{"n": "1000", "l": "10", "d": "4s", "b": "epoll"},
		Pipebench: envinfo.Build{Module: "github.com/pipebench/pipebench", Version: envinfo.Unknown, Revision: "0123456789abcdef0123", Dirty: true},
		Started:   time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		Environment: envinfo.Environment{Kernel: "6.1.0", Arch: "amd64", CPUModel: "Test CPU", Cores: 2, GoVersion: "go1.26.8",
			GOMAXPROCS: 2, FDSoft: 20000, FDHard: 20000, ClockSource: "tsc", Mitigations: map[string]string{"meltdown": "Not affected"}}},
		Config: report.NewConfig(&cfg, 1, 1)}
	return d
}
