package report

import (
	"fmt"
	"time"

	"github.com/pipebench/pipebench/experiment/text"
	"github.com/pipebench/pipebench/pipebench/summary"
	"github.com/pipebench/pipebench/stats"
)

// warningText words w as the text prints it after "warning: ", naming the
// flag that answers it where one does.
func warningText(w summary.Warning) string {
	switch w.Kind {
	case summary.NoFullInterval:
		return "no full interval: the run ended before the first interval"
	case summary.NoIntervalAfterWarmup:
		return fmt.Sprintf("no interval after warm-up: the run ended after %s, all warm-up (-warmup %d)", text.Plural(int(w.Count), "interval"), w.Warmup)
	case summary.SpuriousReads:
		return "the backend reported pipes ready that had nothing to read"
	case summary.BusyRest:
		return fmt.Sprintf("%s: threads other than the reader and writer used %.1f%% of its CPU (more than %.0f%%): see README, \"The Go runtime\"",
			w.Who, 100*w.Value, 100*w.Limit)
	case summary.LateInterval:
		return fmt.Sprintf("interval %d was counted %v after its boundary (more than %.0f%% of an interval): the reporter waited for a CPU",
			w.Interval, w.Late.Round(time.Microsecond), 100*w.Limit)
	case summary.ManyHalts:
		return fmt.Sprintf("halts/evt %.3g (above %g): the run's speed is set by waking halted CPUs, and depends on whether the scheduler put the reader and writer on one CPU or two: -cpu pins them, taskset confines them",
			w.Value, w.Limit)
	case summary.Sysmon:
		return "the Go runtime's sysmon thread wakes about every 10 ms; where idle CPUs halt, as here, it moves the reader and writer onto one CPU more often: compare with a C program that has such a thread (the yardstick's -tick 10ms), or pin them with -cpu"
	case summary.ReadyClamped:
		return fmt.Sprintf("ready/call: %s above %d ready, counted as %d", text.Plural(int(w.Count), "call"), w.Highest, w.Highest)
	case summary.LatencyClamped:
		top := time.Duration(w.Highest)
		return fmt.Sprintf("latency: %s waited longer than %v, counted as %v in the quantiles", text.Plural(int(w.Count), "token"), top, top)
	case summary.LatencyEarly:
		return fmt.Sprintf("latency: %s read at or before the time stamped on them, counted as 0ns", text.Plural(int(w.Count), "token"))
	}
	return string(w.Kind)
}

// sampleWarnings word what a reader of s should be told before trusting
// it, most fundamental first: too few values, values skipped, noise. unit
// names what the values are of, singular: "interval", "run".
func sampleWarnings(s stats.Sample, unit string) []string {
	var w []string
	switch {
	case s.N == 0:
		w = append(w, fmt.Sprintf("no %ss: nothing was measured", unit))
	case s.N == 1:
		w = append(w, fmt.Sprintf("one %s: no spread and no confidence interval", unit))
	case s.N < 3:
		w = append(w, fmt.Sprintf("few %ss: n=%d, the confidence interval is wide", unit, s.N))
	}
	if s.Skipped > 0 {
		w = append(w, fmt.Sprintf("skipped %s", text.Plural(s.Skipped, "non-finite value")))
	}
	if s.Noisy {
		w = append(w, fmt.Sprintf("noisy: coefficient of variation %.1f%% exceeds %.3g%%", s.CV*100, s.CVThreshold*100))
	}
	return w
}

// runWarnings word a run's warnings: what its evts/sec sample shows, when
// it has intervals after warm-up, then the summary's warnings in order.
func runWarnings(r *summary.Run) []string {
	var w []string
	if len(r.Intervals) > r.Summary.Warmup {
		w = sampleWarnings(r.Summary.EventsPerSec, "interval")
	}
	for _, x := range r.Summary.Warnings {
		w = append(w, warningText(x))
	}
	return w
}
