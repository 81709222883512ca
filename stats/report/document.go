package report

import (
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats/summary"
)

// Document is everything one invocation measured, the model behind every
// format: the JSON format is this struct.
type Document struct {
	Record
	Config  Config         `json:"config"`
	Runs    []summary.Run  `json:"runs"`
	Summary summary.Across `json:"summary"`
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
	// The settings that change what is measured beyond the workload's
	// shape: -fd, -churn, -delay, -cpu, -readers, -writers, -maxevents,
	// -nest, -share. Every flag with its value is in Record.Flags too.
	Source    pipebench.Source `json:"source"`
	Churn     int              `json:"churn"`
	Delay     time.Duration    `json:"delay_ns"`
	CPUs      []int            `json:"cpus,omitempty"`
	Spread    bool             `json:"cpu_spread,omitempty"`
	Readers   int              `json:"readers"`
	Writers   int              `json:"writers"`
	MaxEvents int              `json:"maxevents"`
	Nest      int              `json:"nest"`
	Share     bool             `json:"share"`
}

// NewConfig describes cfg, run count times.
func NewConfig(cfg *pipebench.Config, count, warmup int) Config {
	return Config{
		Backend: cfg.Backend.Name, Pipes: cfg.Pipes, InFlight: cfg.InFlight, Writer: cfg.Writer,
		Route: cfg.Route, Seed: cfg.Seed, Duration: cfg.Duration, Interval: cfg.Interval,
		Count: count, Warmup: warmup, Latency: cfg.Latency,
		Source: cfg.Source, Churn: cfg.Churn, Delay: cfg.Delay, CPUs: cfg.CPUs, Spread: cfg.Spread,
		Readers: cfg.Readers, Writers: cfg.Writers, MaxEvents: cfg.MaxEvents, Nest: cfg.Nest, Share: cfg.Share,
	}
}

// AddRun appends a finished run (res may be partial when err is set) and
// refreshes the summary across runs.
func (d *Document) AddRun(res *pipebench.Result, err error) *summary.Run {
	d.Runs = append(d.Runs, summary.NewRun(len(d.Runs)+1, res, err, d.Config.Warmup, d.Config.Duration))
	d.Summary = summary.SummarizeRuns(d.Runs)
	return &d.Runs[len(d.Runs)-1]
}
