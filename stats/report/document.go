package report

import (
	"time"

	"github.com/pipebench/pipebench/internal/envinfo"
	"github.com/pipebench/pipebench/pipebench"
)

// Document is everything one invocation measured, the model behind every
// format: the JSON format is this struct.
type Document struct {
	Tool        string              `json:"tool"`
	Started     time.Time           `json:"started"`
	Config      Config              `json:"config"`
	Environment envinfo.Environment `json:"environment"`
	Runs        []Run               `json:"runs"`
	Summary     Across              `json:"summary"`
	// Error is the failure that ended the invocation, if any.
	Error string `json:"error,omitempty"`
}

// Config is the configuration as the user gave it.
type Config struct {
	Backend  string               `json:"backend"`
	Pipes    int                  `json:"pipes"`
	InFlight int                  `json:"in_flight"`
	Writer   pipebench.WriterMode `json:"writer"`
	Route    pipebench.Route      `json:"route"`
	Seed     uint64               `json:"seed"`
	Duration time.Duration        `json:"duration_ns"`
	Interval time.Duration        `json:"interval_ns"`
	Count    int                  `json:"count"`
	Warmup   int                  `json:"warmup_intervals"`
	Latency  bool                 `json:"latency"`
}

// NewConfig describes cfg, run count times.
func NewConfig(cfg *pipebench.Config, count, warmup int) Config {
	return Config{
		Backend: cfg.BackendName(), Pipes: cfg.Pipes, InFlight: cfg.InFlight, Writer: cfg.Writer,
		Route: cfg.Route, Seed: cfg.Seed, Duration: cfg.Duration, Interval: cfg.Interval,
		Count: count, Warmup: warmup, Latency: cfg.Latency,
	}
}

// Run is one run's result and summary.
type Run struct {
	Index int `json:"index"`
	*pipebench.Result
	Summary Summary `json:"summary"`
	Error   string  `json:"error,omitempty"`
	// LeftOut says why the run is not one of the samples summarised across
	// runs (and has no line in the bench format); empty when it is one.
	LeftOut string `json:"left_out,omitempty"`
}

// AddRun appends a finished run (res may be partial when err is set) and
// refreshes the summary across runs.
func (d *Document) AddRun(res *pipebench.Result, err error) *Run {
	r := Run{Index: len(d.Runs) + 1, Result: res}
	if res != nil {
		r.Summary = Summarize(res, d.Config.Warmup)
	}
	if err != nil {
		r.Error = err.Error()
	}
	r.LeftOut = leftOut(&r, d.Config.Duration)
	d.Runs = append(d.Runs, r)
	d.Summary = SummarizeRuns(d.Runs)
	return &d.Runs[len(d.Runs)-1]
}
