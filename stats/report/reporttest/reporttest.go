// Package reporttest checks the invariants that tie a pipebench run's result
// to itself and to its summary, and each output format's numbers to both,
// for the tests of real runs and of the formats. Every check returns the
// invariants broken, joined, or nil: the caller decides how to fail.
//
// The invariants: the ready-per-call histogram holds one value per readiness
// call and one zero per empty call; the intervals and the tail add up to the
// totals; every token sent was received or drained; the per-interval and
// per-event ratios and the evts/sec summary recompute from the counts, with
// the first -warmup intervals left out, always; the summary across runs
// recomputes from the runs that are not left out, and a run is left out
// exactly when it failed, was interrupted before its duration, or has no
// interval after warm-up or no events. For pipebench seeds: every row is
// complete, its ratio is here ÷ the seed's exactly when both are compared,
// and every format carries the rows.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package reporttest

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
	"github.com/pipebench/pipebench/stats/report"
	"github.com/pipebench/pipebench/stats/summary"
)

// checker collects broken invariants.
type checker struct {
	what string // prefix of every message: "run 2: "
	errs []error
}

func (c *checker) errorf(format string, a ...any) {
	c.errs = append(c.errs, fmt.Errorf(c.what+format, a...))
}

func (c *checker) err() error { return errors.Join(c.errs...) }

// eqU checks an exact count.
func (c *checker) eqU(what string, got, want uint64) {
	if got != want {
		c.errorf("%s = %d, want %d", what, got, want)
	}
}

// eqF checks a ratio recomputed the way the report computes it: equal to
// a part in 1e12 (summation order aside).
func (c *checker) eqF(what string, got, want float64) {
	if !near(got, want, 1e-12) {
		c.errorf("%s = %v, recomputed %v", what, got, want)
	}
}

// near reports whether a and b agree within rel of the larger.
func near(a, b, rel float64) bool {
	return a == b || math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

func ratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Check returns the invariants that res and its summary s, made with warmup
// warm-up intervals, break. res may come from JSON, without histograms:
// then the summary's figures of them are checked alone.
func Check(res *pipebench.Result, s summary.Summary, warmup int) error {
	c := &checker{}
	check(c, res, s, warmup)
	return c.err()
}

func check(c *checker, res *pipebench.Result, s summary.Summary, warmup int) {
	checkPerCall(c, res, s)
	checkTotals(c, res)
	checkPerEvent(c, res, s)
	checkRates(c, res, s, warmup)
	checkLatency(c, res, s)
	checkThreads(c, res, s, warmup)
}

// checkPerCall: the ready-per-call histogram holds a value per readiness
// call and a zero per empty call, each once; its figures are in order.
func checkPerCall(c *checker, res *pipebench.Result, s summary.Summary) {
	t := res.Totals
	c.eqU("ready/call histogram count (summary)", s.PerCall.Calls, t.Calls)
	c.eqU("ready/call empty calls (summary)", s.PerCall.Empty, t.EmptyCalls)
	if h := &res.PerCall; h.Highest() > 0 { // carried (not from JSON)
		c.eqU("ready/call histogram count", h.Count(), t.Calls)
		c.eqU("ready/call histogram zeros", h.Zeros(), t.EmptyCalls)
		c.eqF("ready/call mean", s.PerCall.Mean, h.Mean())
		c.eqU("ready/call max", s.PerCall.Max, h.Max())
	}
	if res.Setup.NoWaitCall && (t.Calls != 0 || s.Applies) {
		c.errorf("%d readiness calls (samples/call applies: %v) for a mechanism without one", t.Calls, s.Applies)
	}
	pc := s.PerCall
	if !(pc.P50 <= pc.P90 && pc.P90 <= pc.P99 && pc.P99 <= float64(pc.Max)) {
		c.errorf("ready/call quantiles out of order: p50 %v p90 %v p99 %v max %d", pc.P50, pc.P90, pc.P99, pc.Max)
	}
	if t.Calls > 0 && !(pc.Mean >= 0 && pc.Mean <= float64(pc.Max)) {
		c.errorf("ready/call mean %v outside 0..max %d", pc.Mean, pc.Max)
	}
}

// checkTotals: the intervals, numbered 1..n, and the tail add up to the
// totals, and every token sent was received or drained.
func checkTotals(c *checker, res *pipebench.Result) {
	t := res.Totals
	sum := res.Tail
	for i, iv := range res.Intervals {
		if iv.Index != i+1 {
			c.errorf("interval %d is numbered %d", i+1, iv.Index)
		}
		checkInterval(c, iv)
		sum = sum.Add(iv.Counts)
	}
	if sum != t {
		c.errorf("intervals and tail add up to %+v, totals are %+v", sum, t)
	}

	tk := res.Tokens
	c.eqU("tokens received", tk.Received, t.Tokens)
	if !tk.SentUnknown {
		if tk.Lost != int64(tk.Sent)-int64(tk.Received)-int64(tk.Drained) {
			c.errorf("tokens lost %d, but sent %d - received %d - drained %d = %d", tk.Lost, tk.Sent, tk.Received, tk.Drained,
				int64(tk.Sent)-int64(tk.Received)-int64(tk.Drained))
		}
		if tk.Received+tk.Drained != tk.Sent {
			c.errorf("tokens received %d + drained %d != sent %d", tk.Received, tk.Drained, tk.Sent)
		}
	}
}

// checkPerEvent: the per-event ratios come from the totals.
func checkPerEvent(c *checker, res *pipebench.Result, s summary.Summary) {
	t := res.Totals
	c.eqF("calls per event", s.CallsPerEvent, ratio(t.Calls, t.Events))
	c.eqF("wait syscalls per event", s.WaitSyscallsPerEvent, ratio(t.WaitSyscalls, t.Events))
	c.eqF("reads per event", s.ReadsPerEvent, ratio(t.Reads+res.WriterReads, t.Events))
	c.eqF("writes per event", s.WritesPerEvent, ratio(t.Writes+res.WriterWrites, t.Events))
	c.eqF("ctl per event", s.CtlPerEvent, ratio(t.Ctl, t.Events))
	c.eqF("writer waits per event", s.WriterWaitsPerEvent, ratio(res.WriterWaits, t.Events))
	// System calls per token: the wait calls and the writer's calls, and
	// the reader's reads, writes and interest changes unless they are
	// io_uring entries (Setup.Ring; reads and writes only for a driver
	// that does its I/O in the ring).
	calls := t.WaitSyscalls + res.WriterReads + res.WriterWrites + res.WriterWaits
	ringIO := res.Setup.Ring && res.Setup.NoWaitCall
	if !ringIO {
		calls += t.Reads + t.Writes
	}
	if !res.Setup.Ring {
		calls += t.Ctl
	}
	c.eqF("syscalls per token", s.SyscallsPerToken, ratio(calls, t.Tokens))
	c.eqF("cpu per token", s.CPUPerToken, ratio(uint64(max(res.Process.CPU(), 0)+max(res.WriterProcess.CPU(), 0)), t.Tokens))
	switch {
	case ringIO:
		c.eqF("completions per enter", s.CompletionsPerEnter, ratio(t.Completions, t.WaitSyscalls))
	case s.CompletionsPerEnter != 0 || t.Completions != 0:
		c.errorf("%d completions, %v per enter, for a backend that does not do its I/O in a ring", t.Completions, s.CompletionsPerEnter)
	}
	if s.Applies {
		c.eqF("samples per call", s.SamplesPerCall, ratio(t.Events, t.Calls-t.EmptyCalls))
	}
}

// checkRates: evts/sec and tokens/sec are over the intervals after
// warm-up, always.
func checkRates(c *checker, res *pipebench.Result, s summary.Summary, warmup int) {
	if s.Warmup != warmup {
		c.errorf("summary made with %d warm-up intervals, want %d", s.Warmup, warmup)
	}
	measured := res.Intervals[min(warmup, len(res.Intervals)):]
	xs := make([]float64, len(measured))
	var toks uint64
	var secs float64
	for i, iv := range measured {
		xs[i] = iv.EventsPerSec
		toks += iv.Tokens
		secs += iv.Seconds
	}
	want, got := stats.Summarize(xs, summary.NoisyCV), s.EventsPerSec
	if got.N != want.N {
		c.errorf("evts/sec over %d intervals, want %d of %d after %d warm-up", got.N, want.N, len(res.Intervals), warmup)
	}
	c.eqF("evts/sec median", got.Median, want.Median)
	c.eqF("evts/sec mean", got.Mean, want.Mean)
	c.eqF("evts/sec sd", got.StdDev, want.StdDev)
	c.eqF("evts/sec CI low", got.CILow, want.CILow)
	c.eqF("evts/sec CI high", got.CIHigh, want.CIHigh)
	c.eqF("tokens/sec", s.TokensPerSec, stats.Rate(toks, secs))
}

// checkThreads: with several readers or writers, the readers' counts add
// up to the totals (ctl calls aside: they are the instances', counted in
// the totals only) and their events in each interval to its events; the
// summary's per-reader rates recompute over the intervals after warm-up and
// add up to their total; every writer's tokens add up (sent = received +
// drained, lost 0) and the writers' add up to the run's.
func checkThreads(c *checker, res *pipebench.Result, s summary.Summary, warmup int) {
	if len(res.Readers) == 0 {
		if len(res.Writers) > 0 || s.Readers != nil {
			c.errorf("%d writer rows and per-reader figures %v without reader rows", len(res.Writers), s.Readers)
		}
		return
	}
	var sum pipebench.Counts
	for _, r := range res.Readers {
		sum = sum.Add(r.Totals)
	}
	sum.Ctl = res.Totals.Ctl
	if sum != res.Totals {
		c.errorf("readers' counts add up to %+v, totals are %+v", sum, res.Totals)
	}
	events := make([]uint64, len(res.Readers))
	var secs float64
	for i, iv := range res.Intervals {
		var ev uint64
		for k, e := range iv.Readers {
			ev += e
			if i >= warmup && k < len(events) {
				events[k] += e
			}
		}
		if i >= warmup {
			secs += iv.Seconds
		}
		if len(iv.Readers) != len(res.Readers) || ev != iv.Events {
			c.errorf("interval %d: %d readers' events add up to %d, the interval has %d", iv.Index, len(iv.Readers), ev, iv.Events)
		}
	}
	if r := s.Readers; r == nil || len(r.EventsPerSec) != len(events) {
		c.errorf("per-reader figures %+v for %d readers", s.Readers, len(events))
	} else {
		var total float64
		for k, e := range events {
			c.eqF(fmt.Sprintf("reader %d evts/sec", k), r.EventsPerSec[k], stats.Rate(e, secs))
			total += r.EventsPerSec[k]
		}
		c.eqF("per-reader total", r.Total, total)
		c.eqF("per-reader mean", r.Mean, total/float64(len(events)))
	}
	var sent, full uint64
	for w, x := range res.Writers {
		if x.Lost != 0 || x.Sent != x.Received+x.Drained {
			c.errorf("writer %d: sent %d, received %d, drained %d, lost %d", w, x.Sent, x.Received, x.Drained, x.Lost)
		}
		sent += x.Sent
		full += x.Full
	}
	if len(res.Writers) > 0 && !res.Tokens.SentUnknown {
		c.eqU("writers' tokens sent added up", sent, res.Tokens.Sent)
		c.eqU("writers' full writes added up", full, res.Tokens.Full)
	}
}

// checkLatency: one latency value per token received, the quantiles in
// order.
func checkLatency(c *checker, res *pipebench.Result, s summary.Summary) {
	tk := res.Tokens
	if h := &res.Latency; h.Count() > 0 {
		c.eqU("latency histogram count", h.Count(), tk.Received)
	}
	if l := s.Latency; l != nil {
		c.eqU("latency tokens (summary)", l.Tokens, tk.Received)
		if !(l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.P999 && l.P999 <= float64(l.Max)*(1+stats.HistRelErr)) {
			c.errorf("latency quantiles out of order: %+v", *l)
		}
	}
}

// checkInterval checks that an interval's rates recompute from its counts.
func checkInterval(c *checker, iv pipebench.Interval) {
	if iv.Seconds <= 0 {
		c.errorf("interval %d lasted %v s", iv.Index, iv.Seconds)
		return
	}
	c.eqF(fmt.Sprintf("interval %d evts/sec", iv.Index), iv.EventsPerSec, float64(iv.Events)/iv.Seconds)
	c.eqF(fmt.Sprintf("interval %d tokens/sec", iv.Index), iv.TokensPerSec, float64(iv.Tokens)/iv.Seconds)
	c.eqF(fmt.Sprintf("interval %d samples per call", iv.Index), iv.SamplesPerCall, ratio(iv.Events, iv.Calls-iv.EmptyCalls))
	if iv.EmptyCalls > iv.Calls {
		c.errorf("interval %d: %d empty calls of %d", iv.Index, iv.EmptyCalls, iv.Calls)
	}
}

// CheckLevelTriggered returns the invariant a run of a level-triggered
// backend breaks if it counted ready pipes wrong: the reader reads every
// ready pipe once, so the ready counts of its calls add up to its events and
// its reads that found nothing. res must carry its histogram.
func CheckLevelTriggered(res *pipebench.Result) error {
	t := res.Totals
	if got, want := res.PerCall.Sum(), t.Events+t.Spurious; got != want {
		return fmt.Errorf("ready pipes over all calls %d, want events %d + spurious reads %d", got, t.Events, t.Spurious)
	}
	if t.Reads != t.Events+t.Spurious {
		return fmt.Errorf("reads %d, want events %d + spurious reads %d", t.Reads, t.Events, t.Spurious)
	}
	return nil
}

// LeftOut is the rule that leaves a run out of the summary across runs (and
// out of the bench format), restated: "" when the run counts.
func LeftOut(r *summary.Run, cfg report.Config) string {
	switch {
	case r.Error != "" || r.Result == nil:
		return "failed"
	case r.Interrupted && cfg.Duration > 0:
		return "interrupted"
	case len(r.Intervals) == 0:
		return "no full interval"
	case len(r.Intervals) <= cfg.Warmup:
		return "no interval after warm-up"
	case r.Summary.EventsPerSec.Median <= 0:
		return "no events"
	}
	return ""
}

// CheckDocument checks every run of d (Check) and the summary across runs.
func CheckDocument(d *report.Document) error {
	c := &checker{}
	var xs []float64
	for i := range d.Runs {
		r := &d.Runs[i]
		c.what = fmt.Sprintf("run %d: ", r.Index)
		if r.Index != i+1 {
			c.errorf("numbered %d, want %d", r.Index, i+1)
		}
		if r.Result != nil {
			check(c, r.Result, r.Summary, d.Config.Warmup)
		}
		want := LeftOut(r, d.Config)
		if r.LeftOut != want {
			c.errorf("left out %q, want %q", r.LeftOut, want)
		}
		if want == "" {
			xs = append(xs, r.Summary.EventsPerSec.Median)
		}
	}
	c.what = "across runs: "
	a, want := d.Summary, stats.Summarize(xs, summary.NoisyCV)
	if a.Runs != len(d.Runs) || a.Summarized != len(xs) || a.LeftOut != len(d.Runs)-len(xs) {
		c.errorf("runs %d, summarized %d, left out %d; want %d, %d, %d", a.Runs, a.Summarized, a.LeftOut,
			len(d.Runs), len(xs), len(d.Runs)-len(xs))
	}
	if a.EventsPerSec.N != want.N {
		c.errorf("%d run medians, want %d", a.EventsPerSec.N, want.N)
	}
	c.eqF("median of run medians", a.EventsPerSec.Median, want.Median)
	c.eqF("mean of run medians", a.EventsPerSec.Mean, want.Mean)
	c.eqF("CI low", a.EventsPerSec.CILow, want.CILow)
	c.eqF("CI high", a.EventsPerSec.CIHigh, want.CIHigh)
	return c.err()
}
