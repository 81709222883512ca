package pipebenchtest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/pipebench"
)

// runCase is one short harness run of the Runs check.
type runCase struct {
	Writer   pipebench.WriterMode
	InFlight int
	Route    pipebench.Route
	Source   pipebench.Source
	Latency  bool
}

func (c runCase) String() string {
	s := fmt.Sprintf("%s/l=%d/%s", c.Writer, c.InFlight, c.Route)
	if c.Source != pipebench.SourcePipe {
		s += "/" + c.Source.String()
	}
	if c.Latency {
		s += "/latency"
	}
	return s
}

// runCases are every writer mode, bounded and unbounded, with both routes,
// a socket and an eventfd source and latency mode.
var runCases = []runCase{
	{Writer: pipebench.WriterSelf, InFlight: 1},
	{Writer: pipebench.WriterSelf, InFlight: 16, Route: pipebench.RouteNext},
	{Writer: pipebench.WriterThread, InFlight: 1},
	{Writer: pipebench.WriterThread, InFlight: 16, Route: pipebench.RouteNext},
	{Writer: pipebench.WriterThread, InFlight: 0},
	{Writer: pipebench.WriterProcess, InFlight: 1},
	{Writer: pipebench.WriterProcess, InFlight: 0, Route: pipebench.RouteNext},
	{Writer: pipebench.WriterAuto, InFlight: 4},
	{Writer: pipebench.WriterThread, InFlight: 4, Source: pipebench.SourceUnix},
	{Writer: pipebench.WriterThread, InFlight: 4, Source: pipebench.SourceEventfd},
	{Writer: pipebench.WriterSelf, InFlight: 8, Latency: true},
}

// checkRuns runs the whole harness (pipebench.Run) on backends from f, 50
// pipes for 400ms in each case, and checks what every run must satisfy:
// every token accounted for, tokens moved, no descriptor left open, the
// writer mode asked for, readiness calls made (or none, for a Loop, and
// the setup saying so), at most one credit word per non-empty readiness
// call (per read for a Loop), no wait system call for a Loop unless it
// declares RingQueued (whose reads are completions, reaped through
// io_uring_enter), a latency sample per token in latency
// mode, one ready-per-call sample per readiness call, and a writer's counts
// that add up (every token write counted, those that found a pipe full
// included; a bounded writer reads its credit pipe once per wait). A case
// whose writer mode the backend does not declare (Factory.Writers), or that
// its Check refuses, is skipped, saying so; a backend must run at least one.
func checkRuns(t *testing.T, f pipebench.Factory) {
	ran := 0
	for _, c := range runCases {
		t.Run(c.String(), func(t *testing.T) {
			checkRun(t, &f, c)
			ran++
		})
	}
	if ran == 0 {
		t.Errorf("%s ran none of the %d cases", f.Name, len(runCases))
	}
}

func checkRun(t *testing.T, f *pipebench.Factory, c runCase) {
	if f.Writers != nil && c.Writer != pipebench.WriterAuto && !slices.Contains(f.Writers, c.Writer) {
		t.Skipf("%s runs with writers %v only", f.Name, f.Writers)
	}
	cfg := pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 50, InFlight: c.InFlight, Route: c.Route, RouteSeed: 7, Source: c.Source, Latency: c.Latency},
		Readiness: pipebench.Readiness{Backend: f},
		Threads:   pipebench.Threads{Writer: c.Writer},
		Window:    pipebench.Window{Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond},
	}
	p, err := pipebench.Prepare(cfg, 0, nil)
	var ce *pipebench.ConfigError
	if errors.As(err, &ce) && f.Check != nil && f.Check(&cfg, nil) != nil {
		t.Skipf("%s refuses it: %v", f.Name, err)
	}
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	if !child.Serving() {
		t.Fatal("this test binary cannot be its own writer process: call child.Serve (internal/child) first thing in TestMain")
	}
	before, err := fdlimit.OpenFDs()
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(pipebench.Observers{})
	SkipIfRefused(t, err)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	checkRunResult(t, f, c, res)
	checkWriterCounts(t, res)
	if after, err := fdlimit.OpenFDs(); err != nil || after != before {
		t.Errorf("%d descriptors open before the run, %d after (%v)", before, after, err)
	}
}

// checkRunResult checks what a run of case c on f must satisfy: every
// invariant of a result (Result.CheckValid: its tokens conserved, its
// counts adding up, a ready-per-call value per readiness call, a latency
// per token), tokens moved, its intervals, its readiness calls or their
// absence, its credit words.
func checkRunResult(t *testing.T, f *pipebench.Factory, c runCase, res *pipebench.Result) {
	t.Helper()
	if err := res.CheckValid(); err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	tk, tot := res.Tokens, res.Totals
	if tk.Received == 0 || tot.Events == 0 {
		t.Fatalf("received %d tokens in %d events", tk.Received, tot.Events)
	}
	if c.InFlight > 0 && tk.Drained > uint64(c.InFlight) {
		t.Errorf("drained %d tokens, more than the %d in flight", tk.Drained, c.InFlight)
	}
	if c.Writer != pipebench.WriterAuto && res.Setup.Writer != c.Writer {
		t.Errorf("writer %s, want %s", res.Setup.Writer, c.Writer)
	}
	if len(res.Intervals) != 4 {
		t.Errorf("%d intervals, want 4", len(res.Intervals))
	}
	noWait := f.IsLoop()
	if res.Setup.NoReadinessCalls != noWait || noWait != (tot.Calls == 0) {
		t.Errorf("%d readiness calls, a Loop %v, no readiness calls in the setup %v", tot.Calls, noWait, res.Setup.NoReadinessCalls)
	}
	if res.Setup.Writer != pipebench.WriterSelf && c.InFlight > 0 {
		// Credit words: one per non-empty readiness call, or one per read
		// (per event) when there is no readiness call.
		limit, per := tot.Calls-tot.EmptyCalls, "non-empty call"
		if noWait {
			limit, per = tot.Events, "event"
		}
		if tot.Writes > limit {
			t.Errorf("reader wrote %d credit words, more than one per %s (%d)", tot.Writes, per, limit)
		}
	}
	ring := f.Features.Has(pipebench.RingQueued)
	if res.Setup.CtlInRing != ring || res.Setup.IOInRing != (ring && noWait) {
		t.Errorf("RingQueued declared %v by a Loop %v; in the setup ctl in ring %v, I/O in ring %v", ring, noWait, res.Setup.CtlInRing, res.Setup.IOInRing)
	}
	switch {
	case noWait && !ring && tot.WaitSyscalls != 0:
		t.Errorf("%d wait system calls by a backend that declares none", tot.WaitSyscalls)
	case noWait && ring && (tot.WaitSyscalls == 0 || tot.Completions < tot.Events):
		// A driver whose io_uring reads: every event is a completion, and
		// completions come through io_uring_enter.
		t.Errorf("%d io_uring_enter calls and %d completions for %d events", tot.WaitSyscalls, tot.Completions, tot.Events)
	case !(noWait && ring) && tot.Completions != 0:
		t.Errorf("%d completions counted by a backend that does not do its I/O in a ring", tot.Completions)
	}
	if c.Latency && res.Latency.Highest() == 0 {
		t.Errorf("latency mode without a latency histogram")
	}
	if res.Process.CPU() <= 0 {
		t.Errorf("the reading process used no CPU: %+v", res.Process)
	}
}

// checkWriterCounts: a writer thread's or process's writes are its tokens
// sent and the writes that found a pipe full; a bounded writer thread reads
// the credit pipe once after each wait for it (ppoll), a writer process
// sleeps in its reads and makes no other wait, an unbounded one never
// waits. A self-mode run has no writer to count.
func checkWriterCounts(t *testing.T, res *pipebench.Result) {
	t.Helper()
	tk := res.Tokens
	writes, reads, waits := res.WriterWrites, res.WriterReads, res.WriterWaits
	switch {
	case res.Setup.Writer == pipebench.WriterSelf:
		if writes+reads+waits != 0 || tk.Full != 0 {
			t.Errorf("self mode with writer counts: %d writes, %d reads, %d waits, %d full", writes, reads, waits, tk.Full)
		}
	case writes != tk.Sent+tk.Full:
		t.Errorf("writer made %d writes for %d tokens sent and %d that found a pipe full", writes, tk.Sent, tk.Full)
	case res.Setup.InFlight > 0 && res.Setup.Writer == pipebench.WriterThread && (reads != waits || waits == 0):
		t.Errorf("bounded writer thread: %d credit reads after %d waits, want one after each", reads, waits)
	case res.Setup.InFlight > 0 && res.Setup.Writer == pipebench.WriterProcess && (waits != 0 || reads == 0):
		t.Errorf("bounded writer process: %d credit reads and %d waits, want reads that are its waits", reads, waits)
	case res.Setup.InFlight == 0 && waits != 0:
		t.Errorf("unbounded writer waited %d times", waits)
	}
}
