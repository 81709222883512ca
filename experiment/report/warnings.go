package report

import (
	"fmt"
	"time"

	"github.com/pipebench/pipebench/experiment/text"
	"github.com/pipebench/pipebench/pipebench/summary"
	"github.com/pipebench/pipebench/stats"
)

// WarningWidth is the widest line of a warning, "warning: " included: a
// warning is one line, as wide as the summary it follows; its section of
// WarningPage says the rest.
const WarningWidth = text.Width

// WarningPage is the page whose sections WarningAnchors name: each
// warning ends with the section that says what it means and what to do.
const WarningPage = "docs/output.md"

// WarningAnchors are the anchors of WarningPage the warnings point to, a
// section each; tools/doccheck holds the page to them.
var WarningAnchors = []string{
	"none", "few", "noisy", "skipped", "spurious", "others", "late", "idle", "unpinned", "clamped", "early",
}

// see ends a warning with its section: " (docs/output.md#noisy)".
func see(anchor string) string { return " (" + WarningPage + "#" + anchor + ")" }

// warningText words w as the text prints it after "warning: ": what was
// seen, with its figures, and the remedy where the user has one, then the
// section that says more.
func warningText(w summary.Warning) string {
	switch w.Kind {
	case summary.NoFullInterval:
		return "no full interval: lengthen -d" + see("none")
	case summary.NoIntervalAfterWarmup:
		return fmt.Sprintf("all %s were warm-up: lower -warmup", text.Plural(int(w.Count), "interval")) + see("none")
	case summary.SpuriousReads:
		return fmt.Sprintf("%s found pipes ready but empty", text.Plural(int(w.Count), "read")) + see("spurious")
	case summary.BusyRest:
		return fmt.Sprintf("other threads: %.3g%% of %s CPU", 100*w.Value, w.Who) + see("others")
	case summary.LateInterval:
		late := time.Duration(stats.RoundSig(float64(w.Late), 3))
		return fmt.Sprintf("interval %d counted %v late: a busy machine", w.Interval, late) + see("late")
	case summary.ManyHalts:
		return fmt.Sprintf("idle entries/evt %.3g > %g: pin with -cpu", w.Value, w.Limit) + see("idle")
	case summary.Sysmon:
		return "unpinned reader and writer: pin with -cpu" + see("unpinned")
	case summary.ReadyClamped:
		return fmt.Sprintf("ready/call: %s over %d", text.Plural(int(w.Count), "call"), w.Highest) + see("clamped")
	case summary.LatencyClamped:
		return fmt.Sprintf("latency: %s over %v", text.Plural(int(w.Count), "token"), time.Duration(w.Highest)) + see("clamped")
	case summary.LatencyEarly:
		return fmt.Sprintf("latency: %s read by their stamp", text.Plural(int(w.Count), "token")) + see("early")
	}
	return string(w.Kind)
}

// sampleWarnings word what a reader of s should be told before trusting
// it, most fundamental first: too few values, values skipped, noise. unit
// names what the values are of, singular: "interval", "run".
func sampleWarnings(s stats.Sample, unit string) []string {
	more := "lengthen -d"
	if unit == "run" {
		more = "raise -count"
	}
	var w []string
	switch {
	case s.N == 0:
		w = append(w, fmt.Sprintf("no %ss: nothing measured", unit)+see("none"))
	case s.N == 1:
		w = append(w, fmt.Sprintf("one %s: no spread; %s", unit, more)+see("few"))
	case s.N < 3:
		w = append(w, fmt.Sprintf("%d %ss: rough spread; %s", s.N, unit, more)+see("few"))
	}
	if s.Skipped > 0 {
		w = append(w, fmt.Sprintf("skipped %s", text.Plural(s.Skipped, "non-finite value"))+see("skipped"))
	}
	if s.Noisy {
		w = append(w, fmt.Sprintf("noisy: cv %.1f%% (over %.3g%%): quiet the machine", s.CV*100, s.CVThreshold*100)+see("noisy"))
	}
	return w
}

// runWarnings word a run's warnings: what its evts/sec sample shows, when
// it has intervals after warm-up, then the summary's warnings in order.
// Where the CPUs' idle entries are warned of, the advice to pin that
// follows them on every run the scheduler placed (summary.Sysmon) is not
// said twice.
func runWarnings(r *summary.Run) []string {
	var w []string
	if len(r.Intervals) > r.Summary.Warmup {
		w = sampleWarnings(r.Summary.EventsPerSec, "interval")
	}
	many := false
	for _, x := range r.Summary.Warnings {
		many = many || x.Kind == summary.ManyHalts
	}
	for _, x := range r.Summary.Warnings {
		if x.Kind == summary.Sysmon && many {
			continue
		}
		w = append(w, warningText(x))
	}
	return w
}
