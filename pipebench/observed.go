package pipebench

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/stats"
)

// observed is what a run observes as it goes: facts of its setup, what the
// reporter closed at each interval boundary, the readers' and writers'
// counts and usage when the window closed, and the tokens drained at
// teardown. result builds the Result from it, once; nothing else writes a
// Result.
type observed struct {
	// Setup: how long making the pipes took (Arm calls aside, in
	// run.armTook), the writer process's thread, the Ps during the window;
	// setup is the Setup described from them when the window opens.
	setupTook          time.Duration
	writerTID          int
	gomaxprocs, lentPs int
	setup              Setup

	// The window: its intervals, the counts they hold (Ctl counted from
	// the window's start), whether Stop ended it, and how long it was.
	intervals   []Interval
	reported    Counts
	interrupted bool
	elapsed     time.Duration
	halts       Halts      // the CPUs' idle-state entries over the window
	machine     MachineCPU // the machine's CPU time over the window
	// An open-loop run's schedule, fixed when the window opened, and the
	// monotonic time (tokens.Nanotime) at which the window closed.
	schedule tokens.Schedule
	stopped  int64

	// When the window closed: each reader's counts, the ctl calls of
	// every backend instance, the readers' histograms merged, a kernel
	// thread's usage, and what the readers received from each writer.
	final            []Counts
	ctl              uint64
	perCall, latency stats.Hist
	kernel           *ThreadUsage
	received         []uint64

	// The writers' reports (thread and process mode), and whether a
	// writer process's is missing; the process's usage; the tokens
	// drained at teardown, in all and from each pipe (nil when the drain
	// failed).
	wreps       []writerReport
	sentUnknown bool
	process     Usage
	drained     uint64
	drainedPer  []uint64
}

// describe is the run's Setup, described once, when the threads that will
// be measured are waiting for the window to open.
func (r *run) describe(th *threads) Setup {
	cfg := &r.cfg
	o := &r.obs
	ran := *cfg
	ran.Writer = r.plan.Writer
	s := Setup{
		Config: ran, Reason: r.plan.Reason, Took: o.setupTook + time.Duration(r.armTook.Load()),
		ReaderFDs: r.plan.ReaderFDs, WriterFDs: r.plan.WriterFDs, Limit: r.plan.Limit,
		NoReadinessCalls:  cfg.Backend.IsLoop(),
		ReadsOnGoroutines: r.goroutines(),
		CtlInRing:         cfg.Backend.Features.Has(RingQueued),
		IOInRing:          cfg.Backend.IsLoop() && cfg.Backend.Features.Has(RingQueued),
		GOMAXPROCS:        o.gomaxprocs, LentPs: o.lentPs,
		PID: unix.Getpid(), WriterPID: unix.Getpid(), ReaderTID: th.readerTIDs[0],
	}
	switch {
	case len(th.writerTIDs) > 0:
		s.WriterTID = th.writerTIDs[0]
	case r.proc != nil:
		s.WriterPID, s.WriterTID = r.proc.Pid(), o.writerTID
	default:
		s.WriterTID = s.ReaderTID
	}
	if cfg.several() {
		s.ReaderTIDs, s.WriterTIDs = th.readerTIDs, th.writerTIDs
	}
	return s
}

// sent is how many tokens were sent: those the writers report, or in self
// mode those setup primed and the readers forwarded.
func (r *run) sent() uint64 {
	if r.plan.Writer == WriterSelf {
		return r.primed + sum(r.obs.final).Writes
	}
	var n uint64
	for _, rep := range r.obs.wreps {
		n += rep.Sent
	}
	return n
}

// result builds the run's Result from what it observed: the one place a
// Result is written.
func (r *run) result(th *threads) *Result {
	cfg := &r.cfg
	o := &r.obs
	res := &Result{
		Setup: o.setup, Intervals: o.intervals, Elapsed: o.elapsed, Interrupted: o.interrupted,
		Totals: sum(o.final), PerCall: o.perCall, Latency: o.latency,
		Process: o.process, KernelThread: o.kernel, Halts: o.halts, Machine: o.machine,
	}
	res.Totals.Ctl = o.ctl
	res.Tail = res.Totals.Sub(o.reported)
	for _, u := range th.readerUse {
		res.ReaderThread = res.ReaderThread.Add(u)
	}
	t := Tokens{Sent: r.sent(), Received: res.Totals.Tokens, Drained: o.drained, SentUnknown: o.sentUnknown}
	for _, rep := range o.wreps {
		res.WriterThread, res.WriterProcess = res.WriterThread.Add(rep.Thread), rep.Process
		res.WriterWrites += rep.Writes
		res.WriterReads += rep.Reads
		res.WriterWaits += rep.Waits
		t.Full += rep.Full
	}
	if t.SentUnknown {
		t.Sent = 0
	} else {
		t.Lost = int64(t.Sent) - int64(t.Received) - int64(t.Drained)
	}
	res.Tokens = t
	res.Pacing = r.pacing(res)
	if cfg.several() {
		res.Readers = make([]ReaderResult, len(o.final))
		for k, c := range o.final {
			lo, hi := cfg.part(k)
			res.Readers[k] = ReaderResult{TID: th.readerTIDs[k], First: lo, Pipes: hi - lo, Totals: c, Usage: th.readerUse[k]}
		}
		if r.plan.Writer == WriterThread {
			res.Writers = r.writerResults(th)
		}
	}
	return res
}

// pacing is an open-loop run's pacing (Config.Rate), from its schedule,
// its writers' reports and the tokens res accounts for; nil for a closed
// loop.
func (r *run) pacing(res *Result) *Pacing {
	s := r.obs.schedule
	if r.cfg.Rate == 0 || s.Rate == 0 {
		return nil
	}
	each := tokens.NewPace(s, 0, r.cfg.Writers)
	p := &Pacing{Rate: s.Rate, Tick: each.Tick(), TokensPerTick: each.TokensPerTick()}
	// The window ends when the writers were told to stop, or at a
	// writer's last tick if that read the clock later (it may have, just
	// before it saw the stop flag): every token sent was due by then.
	end := r.obs.stopped
	for _, rep := range r.obs.wreps {
		p.Ticks += rep.Ticks
		p.MaxBacklog = max(p.MaxBacklog, rep.MaxBacklog)
		end = max(end, rep.LastTick)
	}
	p.Window, p.Due = time.Duration(max(end-s.T0, 0)), tokens.NewPace(s, 0, 1).DueBy(end)
	if res.Tokens.SentUnknown {
		return p
	}
	tk := res.Tokens
	p.Backlog = p.Due - min(tk.Sent, p.Due)
	if secs := p.Window.Seconds(); secs > 0 {
		p.SentRate, p.ReceivedRate = float64(tk.Sent)/secs, float64(tk.Received)/secs
	}
	p.judge(tk, r.cfg.Writers)
	return p
}

// writerResults are each writer's part of a run with several readers or
// writers: what it sent, what the readers received from its pipes (the
// credits they owed it) and what was drained from them, and what that
// leaves lost.
func (r *run) writerResults(th *threads) []WriterResult {
	cfg := &r.cfg
	o := &r.obs
	ws := make([]WriterResult, len(o.wreps))
	for w, rep := range o.wreps {
		ws[w] = WriterResult{Index: w, TID: th.writerTIDs[w], Pipes: cfg.writerPipes(w), InFlight: cfg.writerInFlight(w),
			WriterCounts: rep.WriterCounts, Received: o.received[w], Usage: rep.Thread}
	}
	for i, n := range o.drainedPer {
		ws[cfg.writerOf(i)].Drained += n
	}
	for w := range ws {
		x := &ws[w]
		x.Lost = int64(x.Sent) - int64(x.Received) - int64(x.Drained)
	}
	return ws
}

// outcome is the run's error: its first failure, or an invariant res
// breaks (CheckValid: a *TokenLossError when its tokens do not add up).
// A failed run's result must still hold every invariant but conservation.
func (r *run) outcome(res *Result) error {
	err := r.failure()
	if err == nil {
		return res.CheckValid()
	}
	var loss *TokenLossError
	if verr := res.CheckValid(); verr != nil && !errors.As(verr, &loss) {
		return fmt.Errorf("%w; and %w", err, verr)
	}
	return err
}
