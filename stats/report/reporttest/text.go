package reporttest

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pipebench/pipebench/stats"
	"github.com/pipebench/pipebench/stats/report"
)

// TextRun is what the text format says about one run: its interval lines
// and its summary block, as printed.
type TextRun struct {
	// Rates and Samples are the interval lines' evts/sec and samples per
	// call (Samples empty without a readiness call).
	Rates, Samples []float64
	// Measured is how many intervals the evts/sec line summarises; Warmup
	// how many it says it left out. Both are 0 when it has no figures.
	Measured, Warmup                    int
	Median, Mean, StdDev, Min, Max      float64
	TokensPerSec                        float64 // NaN when n/a
	Applies                             bool
	SamplesPerCall                      float64
	Calls, Empty                        uint64
	ReadyMean                           float64
	ReadyQuantiles                      []string // p50, p90, p99 as printed
	ReadyMax                            uint64
	CallsPerEvent, ReadsPerEvent        float64
	WritesPerEvent, CtlPerEvent         float64
	WaitSyscallsPerEvent                float64
	WriterWaitsPerEvent                 float64
	LatencyQuantiles                    []string // p50, p90, p99, p99.9 as printed, if any
	Sent, Received, Drained             uint64
	Lost                                int64
	SentUnknown, Interrupted, NoneAfter bool
}

var (
	intervalLine = regexp.MustCompile(`^([0-9]+) evts/sec(?: ([0-9.e+-]+) samples per call)?$`)
	medianLine   = regexp.MustCompile(`^evts/sec +median ([0-9]+) +mean ([0-9]+) +sd ([0-9]+) +min ([0-9]+) +max ([0-9]+)$`)
	ciLine       = regexp.MustCompile(`^ +95% CI of mean .*\((?:([0-9]+) intervals|one interval), ([0-9]+) warm-up left out\)$`)
	tokensLine   = regexp.MustCompile(`^tokens/sec +([0-9]+|n/a)$`)
	samplesLine  = regexp.MustCompile(`^samples/call +([0-9.e+-]+) +\(([0-9]+) readiness calls, ([0-9]+) empty\)$`)
	readyLine    = regexp.MustCompile(`^ready/call +mean ([0-9.e+-]+) +p50 ([0-9.]+) +p90 ([0-9.]+) +p99 ([0-9.]+) +max ([0-9]+)$`)
	perEventLine = regexp.MustCompile(`^per event +calls ([0-9.e+-]+) +wait syscalls ([0-9.e+-]+) +reads ([0-9.e+-]+) +writes ([0-9.e+-]+) +ctl ([0-9.e+-]+) +writer waits ([0-9.e+-]+)$`)
	latencyLine  = regexp.MustCompile(`^latency +p50 (\S+) +p90 (\S+) +p99 (\S+) +p99\.9 (\S+) +max (\S+) `)
	accountLine  = regexp.MustCompile(`^tokens +sent ([0-9]+) +received ([0-9]+) +drained ([0-9]+) +lost (-?[0-9]+)$`)
)

// ParseText reads the runs of a text output.
func ParseText(out string) ([]TextRun, error) {
	var runs []TextRun
	var r *TextRun
	f := func(s string) float64 { x, _ := strconv.ParseFloat(s, 64); return x }
	u := func(s string) uint64 { x, _ := strconv.ParseUint(s, 10, 64); return x }
	for i, l := range strings.Split(out, "\n") {
		bad := func() error { return fmt.Errorf("text line %d: cannot read %q", i+1, l) }
		switch {
		case strings.Contains(l, " setup (") && !strings.HasPrefix(l, "setup "):
			runs = append(runs, TextRun{TokensPerSec: math.NaN()})
			r = &runs[len(runs)-1]
		case r == nil:
		case intervalLine.MatchString(l):
			m := intervalLine.FindStringSubmatch(l)
			r.Rates = append(r.Rates, f(m[1]))
			if m[2] != "" {
				r.Samples = append(r.Samples, f(m[2]))
			}
		case strings.HasPrefix(l, "--- "):
			r.Interrupted = strings.Contains(l, "interrupted after")
		case strings.HasPrefix(l, "evts/sec "):
			if strings.Contains(l, "none after warm-up") {
				r.NoneAfter = true
				continue
			}
			if strings.Contains(l, "no full interval") {
				continue
			}
			m := medianLine.FindStringSubmatch(l)
			if m == nil {
				return nil, bad()
			}
			r.Median, r.Mean, r.StdDev, r.Min, r.Max = f(m[1]), f(m[2]), f(m[3]), f(m[4]), f(m[5])
		case strings.Contains(l, "95% CI of mean"):
			m := ciLine.FindStringSubmatch(l)
			if m == nil {
				return nil, bad()
			}
			r.Measured = 1
			if m[1] != "" {
				r.Measured = int(u(m[1]))
			}
			r.Warmup = int(u(m[2]))
		case strings.HasPrefix(l, "tokens/sec "):
			m := tokensLine.FindStringSubmatch(l)
			if m == nil {
				return nil, bad()
			}
			if m[1] != "n/a" {
				r.TokensPerSec = f(m[1])
			}
		case strings.HasPrefix(l, "samples/call "):
			if strings.Contains(l, "n/a") {
				continue
			}
			m := samplesLine.FindStringSubmatch(l)
			if m == nil {
				return nil, bad()
			}
			r.Applies = true
			r.SamplesPerCall, r.Calls, r.Empty = f(m[1]), u(m[2]), u(m[3])
		case strings.HasPrefix(l, "ready/call "):
			m := readyLine.FindStringSubmatch(l)
			if m == nil {
				return nil, bad()
			}
			r.ReadyMean, r.ReadyQuantiles, r.ReadyMax = f(m[1]), m[2:5], u(m[5])
		case strings.HasPrefix(l, "per event "):
			m := perEventLine.FindStringSubmatch(l)
			if m == nil {
				return nil, bad()
			}
			r.CallsPerEvent, r.WaitSyscallsPerEvent, r.ReadsPerEvent = f(m[1]), f(m[2]), f(m[3])
			r.WritesPerEvent, r.CtlPerEvent, r.WriterWaitsPerEvent = f(m[4]), f(m[5]), f(m[6])
		case strings.HasPrefix(l, "latency "):
			m := latencyLine.FindStringSubmatch(l)
			if m == nil {
				return nil, bad()
			}
			r.LatencyQuantiles = m[1:6]
		case strings.HasPrefix(l, "tokens ") && strings.Contains(l, "sent unknown"):
			r.SentUnknown = true
		case strings.HasPrefix(l, "tokens "):
			m := accountLine.FindStringSubmatch(l)
			if m == nil {
				return nil, bad()
			}
			lost, _ := strconv.ParseInt(m[4], 10, 64)
			r.Sent, r.Received, r.Drained, r.Lost = u(m[1]), u(m[2]), u(m[3]), lost
		}
	}
	return runs, nil
}

// sigDigits counts the significant digits of a printed number: "0.0123"
// has 3, "1230" 3, "1234" 4, "2.5µs" 2.
func sigDigits(s string) int {
	digits := strings.TrimLeft(strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s), "0")
	return len(strings.TrimRight(digits, "0"))
}

// CheckText returns the invariants a text output of runs with -warmup warmup
// breaks on its own, without its result: for each run, the summary of the
// interval lines after warm-up; the readiness calls against samples per
// call, calls per event and the tokens received; the token accounting;
// quantiles printed to no more digits than the histogram holds. It returns
// the runs it read.
func CheckText(out string, warmup int) ([]TextRun, error) {
	runs, err := ParseText(out)
	if err != nil {
		return nil, err
	}
	c := &checker{}
	if len(runs) == 0 {
		c.errorf("no run in the text output")
	}
	for i, r := range runs {
		c.what = fmt.Sprintf("text run %d: ", i+1)
		n := len(r.Rates)
		switch {
		case n > warmup && (r.Measured != n-warmup || r.Warmup != warmup):
			c.errorf("summary over %d intervals after %d warm-up; %d interval lines, -warmup %d", r.Measured, r.Warmup, n, warmup)
		case n > 0 && n <= warmup && !r.NoneAfter:
			c.errorf("%d interval lines, all warm-up (-warmup %d), but the summary does not say so", n, warmup)
		}
		if n > warmup {
			xs := r.Rates[warmup:]
			if lo, hi := slices.Min(xs), slices.Max(xs); r.Min != lo || r.Max != hi {
				c.errorf("evts/sec min %v max %v; interval lines after warm-up: %v..%v", r.Min, r.Max, lo, hi)
			}
			// A median has half the lines on each side; the lines are
			// rounded to whole numbers, as the median is.
			below := count(xs, func(x float64) bool { return x <= r.Median+1 })
			above := count(xs, func(x float64) bool { return x >= r.Median-1 })
			if 2*below < len(xs) || 2*above < len(xs) {
				c.errorf("evts/sec median %v has %d of the %d interval lines after warm-up at or below it and %d at or above", r.Median, below, len(xs), above)
			}
		}
		if !r.SentUnknown && (r.Received+r.Drained != r.Sent || r.Lost != 0) {
			c.errorf("tokens sent %d, received %d, drained %d, lost %d", r.Sent, r.Received, r.Drained, r.Lost)
		}
		if r.Applies && r.Calls > r.Empty && r.SamplesPerCall > 0 {
			// events = samples/call * non-empty calls (6 digits); calls per
			// event is printed to 4.
			events := r.SamplesPerCall * float64(r.Calls-r.Empty)
			if want := float64(r.Calls) / events; !near(r.CallsPerEvent, want, 2e-3) {
				c.errorf("calls per event %v, but %d readiness calls (%d empty) at %v samples per call give %v",
					r.CallsPerEvent, r.Calls, r.Empty, r.SamplesPerCall, want)
			}
		}
		if r.Applies && r.Calls > r.Empty && !r.SentUnknown {
			// Every event reads at least one token: the events that the
			// readiness calls imply (samples per call, 6 digits, times the
			// non-empty calls) cannot outnumber the tokens received. A count
			// of calls twice too large fails this unless events carry two
			// tokens or more on average.
			if events := r.SamplesPerCall * float64(r.Calls-r.Empty); events > float64(r.Received)*(1+1e-5) {
				c.errorf("%d readiness calls, %d empty, at %v samples per call make %.0f events, more than the %d tokens received",
					r.Calls, r.Empty, r.SamplesPerCall, events, r.Received)
			}
		}
		for _, q := range append(slices.Clone(r.ReadyQuantiles), r.LatencyQuantiles...) {
			if sigDigits(q) > stats.HistDigits {
				c.errorf("quantile %s printed to more than the %d digits the histogram holds", q, stats.HistDigits)
			}
		}
		if len(r.ReadyQuantiles) == 3 {
			p := make([]float64, 3)
			for k, q := range r.ReadyQuantiles {
				p[k], _ = strconv.ParseFloat(q, 64)
			}
			if !(p[0] <= p[1] && p[1] <= p[2] && p[2] <= float64(r.ReadyMax)) {
				c.errorf("ready/call quantiles %v out of order (max %d)", r.ReadyQuantiles, r.ReadyMax)
			}
		}
	}
	return runs, c.err()
}

// CheckTextAgainst returns where the text output of d disagrees with d's
// own numbers, formatted as the text format prints them.
func CheckTextAgainst(out string, d *report.Document) error {
	runs, err := CheckText(out, d.Config.Warmup)
	c := &checker{}
	if err != nil {
		c.errs = append(c.errs, err)
	}
	if len(runs) != len(d.Runs) {
		c.errorf("%d runs in the text, %d in the document", len(runs), len(d.Runs))
		return c.err()
	}
	round := func(x float64) float64 { v, _ := strconv.ParseFloat(fmt.Sprintf("%.0f", x), 64); return v }
	for i, r := range runs {
		dr := &d.Runs[i]
		c.what = fmt.Sprintf("text run %d: ", i+1)
		if len(r.Rates) != len(dr.Intervals) {
			c.errorf("%d interval lines, %d intervals", len(r.Rates), len(dr.Intervals))
			continue
		}
		for k, iv := range dr.Intervals {
			if r.Rates[k] != round(iv.EventsPerSec) {
				c.errorf("interval %d: %v evts/sec printed, %v measured", k+1, r.Rates[k], iv.EventsPerSec)
			}
		}
		s, t := dr.Summary, dr.Totals
		if e := s.EventsPerSec; e.N > 0 && (r.Measured != e.N || r.Median != round(e.Median) || r.Mean != round(e.Mean)) {
			c.errorf("evts/sec median %v mean %v over %d intervals; the summary has %v %v over %d", r.Median, r.Mean, r.Measured, e.Median, e.Mean, e.N)
		}
		if s.Applies {
			c.eqU("readiness calls printed", r.Calls, t.Calls)
			c.eqU("empty calls printed", r.Empty, t.EmptyCalls)
		}
		tk := dr.Tokens
		if r.Sent != tk.Sent || r.Received != tk.Received || r.Drained != tk.Drained {
			c.errorf("tokens sent %d received %d drained %d printed, %+v accounted", r.Sent, r.Received, r.Drained, tk)
		}
	}
	return c.err()
}
