package summary

import (
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// Run is one run's result and summary, as a report lists it.
type Run struct {
	Index int `json:"index"`
	*pipebench.Result
	Summary Summary `json:"summary"`
	Error   string  `json:"error,omitempty"`
	// LeftOut says why the run is not one of the samples summarised across
	// runs (and has no line in the bench format); empty when it is one.
	LeftOut string `json:"left_out,omitempty"`
}

// NewRun summarises run index of a configuration whose runs last duration
// (0: until interrupted), leaving warmup intervals out; res may be partial
// or nil when err is set.
func NewRun(index int, res *pipebench.Result, err error, warmup int, duration time.Duration) Run {
	r := Run{Index: index, Result: res}
	if res != nil {
		r.Summary = Summarize(res, warmup)
	}
	if err != nil {
		r.Error = err.Error()
	}
	r.LeftOut = leftOut(&r, duration)
	return r
}

// Across summarises several runs of one configuration (-count): the
// evts/sec medians of the runs that count, as a sample of their own. A run
// counts unless it is left out (Run.LeftOut): it failed, was interrupted
// before its duration, had no interval after warm-up, or no events.
type Across struct {
	// Runs were made; Summarized of them count; LeftOut did not.
	Runs         int          `json:"runs"`
	Summarized   int          `json:"runs_summarized"`
	LeftOut      int          `json:"runs_left_out"`
	EventsPerSec stats.Sample `json:"evts_per_sec_of_run_medians"`
}

// SummarizeRuns summarises the runs that are not left out.
func SummarizeRuns(runs []Run) Across {
	xs := make([]float64, 0, len(runs))
	for _, r := range runs {
		if r.LeftOut == "" {
			xs = append(xs, r.Summary.EventsPerSec.Median)
		}
	}
	return Across{Runs: len(runs), Summarized: len(xs), LeftOut: len(runs) - len(xs), EventsPerSec: stats.Describe(xs, NoisyCV)}
}

// leftOut says why run r is not a sample of its configuration, "" when it
// is one. duration is the run's configured duration (0: until interrupted,
// when an interrupt is the normal end).
func leftOut(r *Run, duration time.Duration) string {
	switch {
	case r.Error != "" || r.Result == nil:
		return "failed"
	case r.Interrupted && duration > 0:
		return "interrupted"
	case len(r.Intervals) == 0:
		return "no full interval"
	case r.Summary.EventsPerSec.N == 0:
		return "no interval after warm-up"
	case r.Summary.EventsPerSec.Median <= 0:
		return "no events"
	}
	return ""
}
