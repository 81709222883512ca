// Package reporttest checks a pipebench run's summary and each output
// format's numbers against the run's result, for the tests of real runs
// and of the formats. Every check returns the invariants broken, joined, or
// nil: the caller decides how to fail.
//
// The result's own invariants are its own (pipebench.Result.CheckValid);
// reporttest checks them first, then what ties the summary and the formats
// to the result, as facts about the result rather than a second copy of
// pipebench/summary's code, so that a wrong rule there is caught by a fact it
// breaks rather than passed by agreement: the evts/sec summary describes
// the intervals after the first -warmup (its extremes are two of them, its
// median has half of them on each side, its mean lies between the
// extremes); tokens/sec and the per-reader total, weighted means of those
// intervals' rates, lie between their extremes; each reader's share of
// that total is its share of their events; the per-event ratios are the
// totals' ratios; a run is left out only for a reason its result shows
// (its error, an interrupt before its duration, no interval after
// warm-up, no events), and the summary across runs describes the medians
// of the others. For pipebench seeds: every row is complete, its ratio is
// here ÷ the seed's exactly when both are compared, and every format
// carries the rows.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package reporttest

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
	"github.com/pipebench/pipebench/stats"
	"github.com/pipebench/pipebench/stats/report"
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

// Check returns the invariants that the result of a run that succeeded,
// res, and its summary s, made with warmup warm-up intervals, break. res
// may come from JSON, without histograms: then the summary's figures of
// them are checked alone.
func Check(res *pipebench.Result, s summary.Summary, warmup int) error {
	c := &checker{}
	check(c, res, s, warmup, false)
	return c.err()
}

// check checks res (failed: of a run that failed, whose tokens need not
// be conserved) and its summary.
func check(c *checker, res *pipebench.Result, s summary.Summary, warmup int, failed bool) {
	var loss *pipebench.TokenLossError
	if err := res.CheckValid(); err != nil && !(failed && errors.As(err, &loss)) {
		c.errorf("%w", err)
	}
	checkPerCall(c, res, s)
	checkPerEvent(c, res, s)
	checkRates(c, res, s, warmup)
	checkLatency(c, res, s)
	checkThreads(c, res, s, warmup)
}

// checkPerCall: the summary's ready-per-call figures are the histogram's,
// which holds a value per readiness call and a zero per empty call
// (CheckValid), and are in order.
func checkPerCall(c *checker, res *pipebench.Result, s summary.Summary) {
	t := res.Totals
	c.eqU("ready/call histogram count (summary)", s.PerCall.Calls, t.Calls)
	c.eqU("ready/call empty calls (summary)", s.PerCall.Empty, t.EmptyCalls)
	if h := &res.PerCall; h.Highest() > 0 { // carried (not from JSON)
		c.eqF("ready/call mean", s.PerCall.Mean, h.Mean())
		c.eqU("ready/call max", s.PerCall.Max, h.Max())
	}
	if res.Setup.NoReadinessCalls && (t.Calls != 0 || s.Applies) {
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

// checkPerEvent: the per-event ratios come from the totals.
func checkPerEvent(c *checker, res *pipebench.Result, s summary.Summary) {
	t := res.Totals
	c.eqF("calls per event", s.CallsPerEvent, ratio(t.Calls, t.Events))
	c.eqF("wait syscalls per event", s.WaitSyscallsPerEvent, ratio(t.WaitSyscalls, t.Events))
	c.eqF("reads per event", s.ReadsPerEvent, ratio(t.Reads+res.WriterReads, t.Events))
	c.eqF("writes per event", s.WritesPerEvent, ratio(t.Writes+res.WriterWrites, t.Events))
	c.eqF("ctl per event", s.CtlPerEvent, ratio(t.Ctl, t.Events))
	c.eqF("writer waits per event", s.WriterWaitsPerEvent, ratio(res.WriterWaits, t.Events))
	// System calls per token: at least the wait calls and the writer's,
	// which are system calls whatever the backend, and at most every call
	// counted (the reader's reads, writes and interest changes are
	// io_uring entries for some backends).
	sure := t.WaitSyscalls + res.WriterReads + res.WriterWrites + res.WriterWaits
	all := sure + t.Reads + t.Writes + t.Ctl
	if x, lo, hi := s.SyscallsPerToken, ratio(sure, t.Tokens), ratio(all, t.Tokens); !(x >= lo*(1-1e-12) && x <= hi*(1+1e-12)) {
		c.errorf("syscalls per token %v, outside %v (the wait and writer calls) .. %v (every call counted)", x, lo, hi)
	}
	ringIO := res.Setup.IOInRing
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

// checkRates: the evts/sec summary describes the intervals after warm-up,
// always, and tokens/sec is over the same intervals.
func checkRates(c *checker, res *pipebench.Result, s summary.Summary, warmup int) {
	if s.Warmup != warmup {
		c.errorf("summary made with %d warm-up intervals, want %d", s.Warmup, warmup)
	}
	e := s.EventsPerSec
	n := max(len(res.Intervals)-warmup, 0)
	if e.N != n {
		c.errorf("evts/sec over %d intervals, want %d of %d after %d warm-up", e.N, n, len(res.Intervals), warmup)
		return
	}
	if n == 0 {
		if e.Median != 0 || s.TokensPerSec != 0 {
			c.errorf("no interval after warm-up, yet evts/sec median %v and tokens/sec %v", e.Median, s.TokensPerSec)
		}
		return
	}
	measured := res.Intervals[warmup:]
	evts := make([]float64, n)
	toks := make([]float64, n)
	for i, iv := range measured {
		evts[i], toks[i] = iv.EventsPerSec, iv.TokensPerSec
	}
	lo, hi := slices.Min(evts), slices.Max(evts)
	c.eqF("evts/sec min (the slowest interval after warm-up)", e.Min, lo)
	c.eqF("evts/sec max (the fastest interval after warm-up)", e.Max, hi)
	if below, above := count(evts, func(x float64) bool { return x <= e.Median }), count(evts, func(x float64) bool { return x >= e.Median }); 2*below < n || 2*above < n {
		c.errorf("evts/sec median %v has %d of the %d intervals after warm-up at or below it and %d at or above: not half each", e.Median, below, n, above)
	}
	if !within(e.Mean, lo, hi) || !(e.CILow <= e.Mean && e.Mean <= e.CIHigh) {
		c.errorf("evts/sec mean %v (CI %v..%v) outside the intervals' %v..%v", e.Mean, e.CILow, e.CIHigh, lo, hi)
	}
	if tlo, thi := slices.Min(toks), slices.Max(toks); !within(s.TokensPerSec, tlo, thi) {
		c.errorf("tokens/sec %v outside the intervals' after warm-up, %v..%v", s.TokensPerSec, tlo, thi)
	}
}

// within says whether x lies in lo..hi, to a part in 1e12.
func within(x, lo, hi float64) bool {
	return x >= lo-1e-12*math.Abs(lo) && x <= hi+1e-12*math.Abs(hi)
}

// count counts the xs that f holds for.
func count(xs []float64, f func(float64) bool) int {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}

// checkThreads: with several readers, the summary's per-reader figures:
// their total, a weighted mean of the evts/sec of the intervals after
// warm-up, lies between those intervals' extremes; each reader's share of
// it is its share of their events; the mean is the total's share of each.
// The rows adding up to the run's are the result's own invariants
// (CheckValid).
func checkThreads(c *checker, res *pipebench.Result, s summary.Summary, warmup int) {
	r := s.Readers
	if len(res.Readers) == 0 {
		if r != nil {
			c.errorf("per-reader figures %+v without reader rows", *r)
		}
		return
	}
	if r == nil || len(r.EventsPerSec) != len(res.Readers) {
		c.errorf("per-reader figures %+v for %d readers", r, len(res.Readers))
		return
	}
	measured := res.Intervals[min(warmup, len(res.Intervals)):]
	if len(measured) == 0 {
		return
	}
	events := make([]uint64, len(res.Readers))
	var all uint64
	evts := make([]float64, len(measured))
	for i, iv := range measured {
		for k, e := range iv.Readers {
			events[k] += e
			all += e
		}
		evts[i] = iv.EventsPerSec
	}
	if lo, hi := slices.Min(evts), slices.Max(evts); !within(r.Total, lo, hi) {
		c.errorf("per-reader total %v evts/sec outside the intervals' after warm-up, %v..%v", r.Total, lo, hi)
	}
	var total float64
	for k, e := range events {
		total += r.EventsPerSec[k]
		if r.Total > 0 {
			c.eqF(fmt.Sprintf("reader %d's share of the evts/sec", k), r.EventsPerSec[k]/r.Total, ratio(e, all))
		}
	}
	c.eqF("per-reader total", r.Total, total)
	c.eqF("per-reader mean", r.Mean, total/float64(len(events)))
}

// checkLatency: the summary's latency figures count every token received,
// the quantiles in order.
func checkLatency(c *checker, res *pipebench.Result, s summary.Summary) {
	tk := res.Tokens
	if l := s.Latency; l != nil {
		c.eqU("latency tokens (summary)", l.Tokens, tk.Received)
		if !(l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.P999 && l.P999 <= float64(l.Max)*(1+stats.HistRelErr)) {
			c.errorf("latency quantiles out of order: %+v", *l)
		}
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

// checkLeftOut: a run is left out only for a reason its result shows, and
// a run that counts shows none.
func checkLeftOut(c *checker, r *summary.Run, cfg report.Config) {
	res := r.Result
	failed := r.Error != "" || res == nil
	if res == nil {
		if r.LeftOut != "failed" {
			c.errorf("no result, yet left out %q, want failed", r.LeftOut)
		}
		return
	}
	n := max(len(res.Intervals)-cfg.Warmup, 0)
	measured := res.Intervals[len(res.Intervals)-n:]
	quiet := count(eventsPerSec(measured), func(x float64) bool { return x <= 0 }) // intervals without events
	var shows bool
	switch r.LeftOut {
	case "":
		if failed || (res.Interrupted && cfg.Duration > 0) || n == 0 || 2*quiet >= n+1 {
			c.errorf("counted, yet error %q, interrupted %v (duration %v), %d intervals after %d warm-up, %d of them without events",
				r.Error, res.Interrupted, cfg.Duration, n, cfg.Warmup, quiet)
		}
		return
	case "failed":
		shows = failed
	case "interrupted":
		shows = res.Interrupted && cfg.Duration > 0
	case "no full interval":
		shows = len(res.Intervals) == 0
	case "no interval after warm-up":
		shows = n == 0
	case "no events":
		shows = 2*quiet > n // a median of 0: more than half the intervals without events
	default:
		c.errorf("left out for an unknown reason %q", r.LeftOut)
		return
	}
	if !shows {
		c.errorf("left out %q, but the run shows no such thing: error %q, interrupted %v (duration %v), %d intervals, %d after warm-up, %d of them without events",
			r.LeftOut, r.Error, res.Interrupted, cfg.Duration, len(res.Intervals), n, quiet)
	}
}

// eventsPerSec are the intervals' evts/sec.
func eventsPerSec(ivs []pipebench.Interval) []float64 {
	xs := make([]float64, len(ivs))
	for i, iv := range ivs {
		xs[i] = iv.EventsPerSec
	}
	return xs
}

// CheckDocument checks every run of d (Check; a failed run's tokens need
// not be conserved), why each left-out run is, and the summary across the
// runs that count: it describes their medians.
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
			check(c, r.Result, r.Summary, d.Config.Warmup, r.Error != "")
		}
		checkLeftOut(c, r, d.Config)
		if r.LeftOut == "" {
			xs = append(xs, r.Summary.EventsPerSec.Median)
		}
	}
	c.what = "across runs: "
	a := d.Summary
	if a.Runs != len(d.Runs) || a.Summarized != len(xs) || a.LeftOut != len(d.Runs)-len(xs) {
		c.errorf("runs %d, summarized %d, left out %d; want %d, %d, %d", a.Runs, a.Summarized, a.LeftOut,
			len(d.Runs), len(xs), len(d.Runs)-len(xs))
	}
	e := a.EventsPerSec
	if e.N != len(xs) {
		c.errorf("%d run medians, want %d", e.N, len(xs))
		return c.err()
	}
	if len(xs) == 0 {
		return c.err()
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	c.eqF("lowest run median", e.Min, lo)
	c.eqF("highest run median", e.Max, hi)
	if below, above := count(xs, func(x float64) bool { return x <= e.Median }), count(xs, func(x float64) bool { return x >= e.Median }); 2*below < len(xs) || 2*above < len(xs) {
		c.errorf("median of run medians %v has %d of %d at or below it and %d at or above", e.Median, below, len(xs), above)
	}
	if !within(e.Mean, lo, hi) || !(e.CILow <= e.Mean && e.Mean <= e.CIHigh) {
		c.errorf("mean of run medians %v (CI %v..%v) outside their %v..%v", e.Mean, e.CILow, e.CIHigh, lo, hi)
	}
	return c.err()
}
