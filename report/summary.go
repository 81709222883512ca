package report

import (
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// NoisyCV is the coefficient of variation above which a run is flagged as
// noisy.
const NoisyCV = 0.05

// Summary is what a run comes to, computed from its result alone.
type Summary struct {
	// EventsPerSec summarises evts/sec over the intervals after warm-up.
	EventsPerSec stats.Summary `json:"evts_per_sec"`
	// Warmup is how many leading intervals were left out.
	Warmup int `json:"warmup_intervals"`
	// TokensPerSec is tokens received per second over the same intervals.
	TokensPerSec float64 `json:"tokens_per_sec"`
	// SamplesPerCall is events per non-empty readiness call over the whole
	// window; Applies is false for mechanisms without a readiness call.
	SamplesPerCall float64 `json:"samples_per_call"`
	Applies        bool    `json:"samples_per_call_applies"`
	// Per event, over the whole window.
	CallsPerEvent  float64 `json:"calls_per_event"`
	ReadsPerEvent  float64 `json:"reads_per_event"`
	WritesPerEvent float64 `json:"writes_per_event"`
	CtlPerEvent    float64 `json:"ctl_per_event"`
	// Warnings travel as values; writers decide how to show them.
	Warnings []string `json:"warnings,omitempty"`
}

// Summarize computes the summary of res. warmup leading intervals are left
// out of the evts/sec figures when more intervals than that remain.
func Summarize(res *pipebench.Result, warmup int) Summary {
	ivs := res.Intervals
	if len(ivs) <= warmup {
		warmup = 0
	}
	ivs = ivs[warmup:]
	xs := make([]float64, len(ivs))
	var toks uint64
	var secs float64
	for i, iv := range ivs {
		xs[i] = iv.EventsPerSec
		toks += iv.Tokens
		secs += iv.Seconds
	}
	s := Summary{
		EventsPerSec: stats.Summarize(xs, NoisyCV),
		Warmup:       warmup,
		TokensPerSec: stats.Rate(toks, secs),
		Applies:      !res.Setup.NoWaitCall,
	}
	t := res.Totals
	if s.Applies && t.Calls > t.EmptyCalls {
		s.SamplesPerCall = float64(t.Events) / float64(t.Calls-t.EmptyCalls)
	}
	s.CallsPerEvent = stats.PerEvent(t.Calls, t.Events)
	s.ReadsPerEvent = stats.PerEvent(t.Reads, t.Events)
	s.WritesPerEvent = stats.PerEvent(t.Writes+res.WriterWrites, t.Events)
	s.CtlPerEvent = stats.PerEvent(t.Ctl, t.Events)
	s.Warnings = s.EventsPerSec.Warnings()
	if len(res.Intervals) == 0 {
		s.Warnings = append(s.Warnings, "no full interval: the run ended before the first interval")
	}
	if t.Spurious > 0 {
		s.Warnings = append(s.Warnings, "the backend reported pipes ready that had nothing to read")
	}
	return s
}
