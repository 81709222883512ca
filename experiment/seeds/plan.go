package seeds

import (
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
)

// Plan is the sizes and durations of one reproduction. Quick and Full are
// the command's; tests make tiny ones.
type Plan struct {
	Name string `json:"name"`
	// Run and Interval are each run's measured window and reporting
	// interval (the herd's: each setting's); Warmup leading intervals are
	// left out of its median.
	Run      time.Duration `json:"run_ns"`
	Interval time.Duration `json:"interval_ns"`
	Warmup   int           `json:"warmup_intervals"`
	// CPU pins seed 001's runs, reader and writer, to one CPU, as the
	// seed's uniprocessor laptop ran them (-cpu); -1 leaves them free.
	CPU int `json:"cpu"`
	// Small and Big stand for seed 001's 1000 and 10000 pipes with a writer
	// thread, which cannot hold 10000 under a limit of 20000 descriptors
	// (9990 is about the most it holds); BigProcess is its 10000 with a
	// writer process (-n 10000 -f, and epoll beside it).
	Small      int `json:"small"`
	Big        int `json:"big"`
	BigProcess int `json:"big_process"`
	// BigProfiled stands for Big in the kernel-profile run: perf's control
	// pipes and its start take descriptors of the reading process that
	// the run's descriptor plan does not count, so it runs a few pipes
	// fewer (Big when 0).
	BigProfiled int `json:"big_profiled,omitempty"`
	// SweepPipes are seed 004's pipe counts, ascending, the last standing
	// for its 10000 (9995 is the most every backend holds in one process
	// with -writer self, under a limit of 20000).
	SweepPipes []int `json:"sweep_pipes"`
	// The herd of seed 000: waiters, their kind, pipes, tokens in flight.
	HerdWaiters  int       `json:"herd_waiters"`
	HerdMode     herd.Mode `json:"herd_mode"`
	HerdPipes    int       `json:"herd_pipes"`
	HerdInFlight int       `json:"herd_in_flight"`
	// Seed 002 at DelayPipes pipes, a writer thread paced at LoadShare of
	// the saturation an unbounded writer finds in the same configuration:
	// on uring a sleep of Delay before each wait against io_uring's
	// minimum wait MinWait; on epoll the sleep against none.
	DelayPipes int           `json:"delay_pipes"`
	Delay      time.Duration `json:"delay_ns"`
	MinWait    time.Duration `json:"min_wait_ns"`
	LoadShare  float64       `json:"load_share"`
	// Seed 003's churn: ChurnPipes pipes, Churn changes per readiness call;
	// its latency against the descriptors polled, at LatencyPipes; its
	// timeout overshoot at Timeouts, Samples each (the rows judge the
	// first, a sub-millisecond one).
	ChurnPipes     int             `json:"churn_pipes"`
	Churn          int             `json:"churn"`
	LatencyPipes   []int           `json:"latency_pipes"`
	Timeouts       []time.Duration `json:"timeouts_ns"`
	TimeoutSamples int             `json:"timeout_samples"`
}

// bigProfiled is the pipes of the Big kernel-profile run.
func (p Plan) bigProfiled() int {
	if p.BigProfiled > 0 {
		return p.BigProfiled
	}
	return p.Big
}

// Quick finishes in under 2 minutes on this project's 2-core VM.
var Quick = Plan{
	Name: "quick", Run: 1500 * time.Millisecond, Interval: 250 * time.Millisecond, Warmup: 1, CPU: 0,
	Small: 1000, Big: 9990, BigProcess: 10000, BigProfiled: 9980,
	SweepPipes:  []int{10, 1000, 9995},
	HerdWaiters: 250, HerdMode: herd.Processes, HerdPipes: 1, HerdInFlight: 10,
	DelayPipes: 1000, Delay: 200 * time.Microsecond, MinWait: 200 * time.Microsecond, LoadShare: 0.5,
	ChurnPipes: 10, Churn: 5,
	LatencyPipes: []int{15, 85, 200},
	Timeouts:     []time.Duration{100 * time.Microsecond}, TimeoutSamples: 50,
}

// Full runs longer and more sizes, in under 10 minutes here.
var Full = Plan{
	Name: "full", Run: 4 * time.Second, Interval: 500 * time.Millisecond, Warmup: 1, CPU: 0,
	Small: 1000, Big: 9990, BigProcess: 10000, BigProfiled: 9980,
	SweepPipes:  []int{10, 100, 1000, 5000, 9995},
	HerdWaiters: 250, HerdMode: herd.Processes, HerdPipes: 1, HerdInFlight: 10,
	DelayPipes: 1000, Delay: 200 * time.Microsecond, MinWait: 200 * time.Microsecond, LoadShare: 0.5,
	ChurnPipes: 10, Churn: 5,
	LatencyPipes: []int{15, 85, 200},
	Timeouts:     []time.Duration{100 * time.Microsecond}, TimeoutSamples: 200,
}
