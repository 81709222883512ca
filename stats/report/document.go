package report

import (
	"time"

	"github.com/pipebench/pipebench/internal/envinfo"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats/summary"
)

// Document is everything one invocation measured, the model behind every
// format: the JSON format is this struct.
type Document struct {
	Tool        string              `json:"tool"`
	Started     time.Time           `json:"started"`
	Config      Config              `json:"config"`
	Environment envinfo.Environment `json:"environment"`
	Runs        []summary.Run       `json:"runs"`
	Summary     summary.Across      `json:"summary"`
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
		Backend: cfg.Backend.Name, Pipes: cfg.Pipes, InFlight: cfg.InFlight, Writer: cfg.Writer,
		Route: cfg.Route, Seed: cfg.Seed, Duration: cfg.Duration, Interval: cfg.Interval,
		Count: count, Warmup: warmup, Latency: cfg.Latency,
	}
}

// AddRun appends a finished run (res may be partial when err is set) and
// refreshes the summary across runs.
func (d *Document) AddRun(res *pipebench.Result, err error) *summary.Run {
	d.Runs = append(d.Runs, summary.NewRun(len(d.Runs)+1, res, err, d.Config.Warmup, d.Config.Duration))
	d.Summary = summary.SummarizeRuns(d.Runs)
	return &d.Runs[len(d.Runs)-1]
}
