package sweep

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// Key names one point of a sweep. Writers and Readers are 0 when the
// sweep does not cross them (every point then runs with the same). Rate is
// the offered load of an open-loop point (-rate), tokens per second, or,
// with OfSaturation, a fraction of its curve's measured saturation (0.5:
// half); 0 in a closed-loop sweep.
type Key struct {
	Backend      string  `json:"backend"`
	Pipes        int     `json:"pipes"`
	InFlight     int     `json:"in_flight"`
	Writers      int     `json:"writers,omitempty"`
	Readers      int     `json:"readers,omitempty"`
	Rate         float64 `json:"rate,omitempty"`
	OfSaturation bool    `json:"rate_of_saturation,omitempty"`
}

func (k Key) String() string {
	s := fmt.Sprintf("%s at %d pipes, -l %d", k.Backend, k.Pipes, k.InFlight)
	if k.Rate > 0 {
		s = fmt.Sprintf("%s at %d pipes, -rate %s", k.Backend, k.Pipes, RateText(k.Rate, k.OfSaturation))
	}
	if k.Writers > 0 {
		s += fmt.Sprintf(", -writers %d", k.Writers)
	}
	if k.Readers > 0 {
		s += fmt.Sprintf(", -readers %d", k.Readers)
	}
	return s
}

// Grid is the lists a sweep crosses. Its points run row by row: pipes in
// ascending order, then tokens in flight, then writers, then readers, then
// backends in the order given, so that a sweep cut short leaves whole rows
// behind. Writers and Readers are empty when the sweep does not cross
// them. PipesPer makes Pipes count pipes per thread: "writer", a point
// with W writers has Pipes x W pipes (stress-epoll's one eventfd per
// producer is Pipes 1); "reader", a point with R readers has Pipes x R
// (perf bench epoll wait's -f 64 per thread is Pipes 64); "" (all), Pipes
// is every point's number of pipes. Rates, when set, make the sweep open
// loop (-rate): each is an offered load, tokens per second, or with
// OfSaturation a fraction of each curve's saturation, measured before the
// curve's points (Result.Saturation); they run inside readers, before
// backends, lowest first.
type Grid struct {
	Backends     []string  `json:"backends"`
	Pipes        []int     `json:"pipes"`
	InFlight     []int     `json:"in_flight"`
	Writers      []int     `json:"writers,omitempty"`
	Readers      []int     `json:"readers,omitempty"`
	PipesPer     string    `json:"pipes_per,omitempty"`
	Rates        []float64 `json:"rates,omitempty"`
	OfSaturation bool      `json:"rates_of_saturation,omitempty"`
}

// Keys lists every point of the grid in the order it runs. Pipes, tokens
// in flight, writers, readers and rates are taken in ascending order
// whatever order they were given in.
func (g Grid) Keys() []Key {
	pipes, inflight := sorted(g.Pipes), sorted(g.InFlight)
	writers, readers := orZero(sorted(g.Writers)), orZero(sorted(g.Readers))
	rates := orZero(sorted(g.Rates))
	keys := make([]Key, 0, len(g.Backends)*len(pipes)*len(inflight)*len(writers)*len(readers)*len(rates))
	for _, n := range pipes {
		for _, l := range inflight {
			for _, w := range writers {
				for _, r := range readers {
					for _, rate := range rates {
						for _, b := range g.Backends {
							k := Key{Backend: b, Pipes: n, InFlight: l, Writers: w, Readers: r, Rate: rate, OfSaturation: rate > 0 && g.OfSaturation}
							switch g.PipesPer {
							case "writer":
								k.Pipes = n * max(w, 1)
							case "reader":
								k.Pipes = n * max(r, 1)
							}
							keys = append(keys, k)
						}
					}
				}
			}
		}
	}
	return keys
}

// Open says whether the grid is an open-loop sweep (-rate).
func (g Grid) Open() bool { return len(g.Rates) > 0 }

// orZero is xs, or one 0 (not crossed) when xs is empty.
func orZero[T int | float64](xs []T) []T {
	if len(xs) == 0 {
		return []T{0}
	}
	return xs
}

func sorted[T int | float64](xs []T) []T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

// Job is one point and the run that measures it, prepared before the
// sweep begins (NewJob).
type Job struct {
	Key Key
	// Config is the run's configuration, as given.
	Config pipebench.Config
	// Prepared is the run, checked and planned; nil when the point cannot
	// run here, and Skip then says why (the descriptor limit).
	Prepared *pipebench.Prepared
	Skip     string
}

// NewJob prepares the run of point k with cfg (pipebench.Prepare, its
// refusals written by names). A point over a limit of this machine (a
// *pipebench.LimitError) is a job to skip, with the reason; any other
// refusal is the error.
func NewJob(k Key, cfg pipebench.Config, names pipebench.Names) (Job, error) {
	p, err := pipebench.Prepare(cfg, 0, names)
	var limit *pipebench.LimitError
	switch {
	case errors.As(err, &limit):
		return Job{Key: k, Config: cfg, Skip: err.Error()}, nil
	case err != nil:
		return Job{}, err
	}
	return Job{Key: k, Config: cfg, Prepared: p}, nil
}

// Point is what one run of a sweep measured.
type Point struct {
	Key
	// Round is the round of a sweep of several (-count) that measured it;
	// 0 when the sweep had one.
	Round int `json:"round,omitempty"`
	// Writer is the writer the run used (auto resolved).
	Writer string `json:"writer"`
	// EventsPerSec is the median evts/sec over the intervals after warm-up;
	// CILow..CIHigh the 95% confidence interval of the mean; CV the
	// coefficient of variation, Noisy when above summary.NoisyCV.
	EventsPerSec float64 `json:"evts_per_sec"`
	CILow        float64 `json:"ci_low"`
	CIHigh       float64 `json:"ci_high"`
	CV           float64 `json:"cv"`
	Noisy        bool    `json:"noisy"`
	// Intervals is how many intervals the median is taken over.
	Intervals    int     `json:"intervals"`
	TokensPerSec float64 `json:"tokens_per_sec"`
	// HeldTokensPerSec is the least tokens/sec of the intervals after
	// warm-up (summary.Summary's): of a saturation run, the saturation.
	HeldTokensPerSec float64 `json:"held_tokens_per_sec,omitempty"`
	// SamplesPerCall is events per non-empty readiness call over the run;
	// SamplesApply is false for mechanisms without a readiness call.
	SamplesPerCall float64          `json:"samples_per_call"`
	SamplesApply   bool             `json:"samples_per_call_applies"`
	Tokens         pipebench.Tokens `json:"tokens"`
	// SyscallsPerToken, CPUPerToken (ns) and CompletionsPerEnter are the
	// run's (summary.Summary): what a token costs, whatever moves it.
	SyscallsPerToken    float64 `json:"syscalls_per_token"`
	CPUPerToken         float64 `json:"cpu_ns_per_token"`
	CompletionsPerEnter float64 `json:"completions_per_enter,omitempty"`
	// Costs are CPU time and context switches per event of every thread
	// and process (summary.Summary's); Latency the write-to-read times
	// when -latency recorded them.
	Costs   []summary.Cost   `json:"costs,omitempty"`
	Latency *summary.Latency `json:"latency,omitempty"`
	// Others and Steal are the shares of a CPU other programs and the
	// hypervisor took during the run's window (pipebench.Result.Others);
	// nil where the machine's CPU time was not read.
	Others *float64 `json:"others_cpu,omitempty"`
	Steal  *float64 `json:"steal_cpu,omitempty"`
	// Pacing is how an open-loop point (-rate) kept its schedule: offered,
	// sent and received tokens per second, the tick, the backlog, and
	// whether the rate was past saturation; nil in a closed loop.
	Pacing *pipebench.Pacing `json:"pacing,omitempty"`
	// IdleShare is how idle the CPUs the run may use were over its window;
	// MachineCPUPerEvent every CPU's busy time per event, every program's
	// (summary.Summary's); nil where /proc/stat was not read.
	IdleShare          *float64 `json:"idle_share,omitempty"`
	MachineCPUPerEvent *float64 `json:"machine_cpu_ns_per_event,omitempty"`
}

// NewPoint summarises one finished run.
func NewPoint(k Key, res *pipebench.Result, warmup int) Point {
	s := summary.Summarize(res, warmup)
	e := s.EventsPerSec
	p := Point{
		Key: k, Writer: res.Setup.Writer.String(),
		EventsPerSec: e.Median, CILow: e.CILow, CIHigh: e.CIHigh, CV: e.CV, Noisy: e.Noisy,
		Intervals: e.N, TokensPerSec: s.TokensPerSec, HeldTokensPerSec: s.HeldTokensPerSec,
		SamplesPerCall: s.SamplesPerCall, SamplesApply: s.Applies,
		Tokens:           res.Tokens,
		SyscallsPerToken: s.SyscallsPerToken, CPUPerToken: s.CPUPerToken, CompletionsPerEnter: s.CompletionsPerEnter,
		Costs: s.Costs, Latency: s.Latency,
		Pacing: res.Pacing, IdleShare: s.IdleShare, MachineCPUPerEvent: s.MachineCPUPerEvent,
	}
	if others, steal, ok := res.Others(); ok {
		p.Others, p.Steal = &others, &steal
	}
	return p
}

// Missing is a point of the grid that has no measurement, and why.
type Missing struct {
	Key
	// Round is the round the run belonged to, in a sweep of several.
	Round  int    `json:"round,omitempty"`
	Reason string `json:"reason"`
}

// SamplesVary reports whether samples per call differs across the points
// by more than 10%.
func SamplesVary(points []Point) bool {
	lo, hi := 0.0, 0.0
	for _, p := range points {
		if !p.SamplesApply || p.SamplesPerCall <= 0 {
			continue
		}
		if lo == 0 || p.SamplesPerCall < lo {
			lo = p.SamplesPerCall
		}
		hi = max(hi, p.SamplesPerCall)
	}
	return lo > 0 && hi > 1.1*lo
}
