package report

import (
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// Document is everything one invocation measured, the model behind every
// format: the JSON format is this struct.
type Document struct {
	record.Head
	Config  Config         `json:"config"`
	Runs    []summary.Run  `json:"runs"`
	Summary summary.Across `json:"summary"`
	// Error is the failure that ended the invocation, if any.
	Error string `json:"error,omitempty"`
}

// Config is the "config" block of a run's record: the run's
// configuration as the user gave it (pipebench.Config, every setting, in
// its own JSON), and how many times it ran and how many leading intervals
// the summaries leave out, which are the invocation's, not the run's.
type Config struct {
	pipebench.Config
	Count  int `json:"count"`
	Warmup int `json:"warmup_intervals"`
}

// NewConfig describes cfg, run count times.
func NewConfig(cfg *pipebench.Config, count, warmup int) Config {
	return Config{Config: *cfg, Count: count, Warmup: warmup}
}

// AddRun appends a finished run (res may be partial when err is set) and
// refreshes the summary across runs.
func (d *Document) AddRun(res *pipebench.Result, err error) *summary.Run {
	d.Runs = append(d.Runs, summary.NewRun(len(d.Runs)+1, res, err, d.Config.Warmup, d.Config.Duration))
	d.Summary = summary.SummarizeRuns(d.Runs)
	return &d.Runs[len(d.Runs)-1]
}
