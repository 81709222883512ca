package timeout

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/unix"
	"gonum.org/v1/gonum/stat"

	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/rounds"
	"github.com/pipebench/pipebench/pipebench"
)

// DefaultTimeouts are the requests measured unless told otherwise.
var DefaultTimeouts = []time.Duration{
	50 * time.Microsecond, 100 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 5 * time.Millisecond,
}

// Limits of a configuration: every sample sleeps, so the product of the
// two is the run's length.
const (
	MaxSamples = 100000
	MaxTimeout = time.Second
	MaxRounds  = 1000
)

// Config is one timeout-precision measurement.
type Config struct {
	// Timeouts are the requests (default DefaultTimeouts), each in (0, 1s].
	Timeouts []time.Duration
	// Mechanisms to measure (default all, in their order).
	Mechanisms []Mechanism
	// Samples per mechanism and timeout (default 100).
	Samples int
	// Rounds repeats the whole measurement, every point's samples, this
	// many times (default 1), one repetition after the other.
	Rounds int
	// Slack, when > 0, sets the measuring thread's timer slack
	// (PR_SET_TIMERSLACK) for the run; 0 leaves it as inherited (50µs by
	// default). poll, select and epoll sleep with that slack (or 0.1% of the
	// timeout, if more); a timerfd does not.
	Slack time.Duration
}

// Observers are the caller's hooks into a measurement, apart from its
// settings (Config); the zero value observes nothing.
type Observers struct {
	// Stop, when closed, ends the run after the sample in progress.
	Stop <-chan struct{}
	// OnRound, if set, is called as each repetition begins, with its number
	// from 1.
	OnRound func(round int)
}

// check reports the first rule c breaks, a *pipebench.ConfigError written
// by n.
func (c *Config) check(n pipebench.Names) error {
	set := pipebench.Set
	for _, d := range c.Timeouts {
		if d <= 0 || d > MaxTimeout {
			return n.Errorf("%s: want durations above 0 and at most %v", set("Timeouts", d), MaxTimeout)
		}
	}
	for _, m := range c.Mechanisms {
		if m < 0 || m >= numMechanisms {
			return n.Errorf("%s: unknown mechanism", set("Mechanisms", m))
		}
	}
	switch {
	case c.Samples < 0 || c.Samples > MaxSamples:
		return n.Errorf("%s: want 1 to %d samples per point", set("Samples", c.Samples), MaxSamples)
	case c.Rounds < 0 || c.Rounds > MaxRounds:
		return n.Errorf("%s: want 1 to %d rounds", set("Rounds", c.Rounds), MaxRounds)
	case c.Slack < 0:
		return n.Errorf("%s: want a duration >= 0 (0 leaves the timer slack alone)", set("Slack", c.Slack))
	}
	return nil
}

// Prepared is a measurement checked against its rules, ready to run:
// Prepare makes one, and its Run runs it without checking again.
type Prepared struct {
	cfg Config // with its defaults filled in
}

// Prepare is the one entry point to a measurement's rules: it checks c
// before any work, a *pipebench.ConfigError written by names (nil: by the
// Config's own field names).
func Prepare(c Config, names pipebench.Names) (*Prepared, error) {
	cfg := c.withDefaults()
	if err := cfg.check(names); err != nil {
		return nil, err
	}
	return &Prepared{cfg: cfg}, nil
}

func (c *Config) withDefaults() Config {
	d := *c
	if len(d.Timeouts) == 0 {
		d.Timeouts = DefaultTimeouts
	}
	if len(d.Mechanisms) == 0 {
		d.Mechanisms = Mechanisms()
	}
	if d.Samples == 0 {
		d.Samples = 100
	}
	if d.Rounds == 0 {
		d.Rounds = 1
	}
	return d
}

// Point is one mechanism at one requested timeout.
type Point struct {
	Mechanism Mechanism     `json:"mechanism"`
	Requested time.Duration `json:"requested_ns"`
	// Samples were measured; Interrupted more were cut short by a signal
	// (EINTR) and discarded.
	Samples     int `json:"samples"`
	Interrupted int `json:"interrupted"`
	// Overshoot quantiles (gonum's stat.Empirical: the smallest sample with
	// at least that share of the samples at or below it), minimum, maximum
	// and mean.
	Min  time.Duration `json:"min_ns"`
	P50  time.Duration `json:"p50_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
	Mean time.Duration `json:"mean_ns"`
	// Overshoots are every sample's, in the order taken.
	Overshoots []time.Duration `json:"-"`
}

// Result is a measurement: one Point per mechanism and timeout, mechanism
// by mechanism, timeouts in the order asked.
type Result struct {
	// Points are the figures of every point: with one round, its only
	// repetition's; with several, the medians of the repetitions'
	// (MedianPoints), their Samples and Interrupted the repetitions' sums.
	Points []Point `json:"points"`
	// Samples per point asked for, in each repetition; Interrupted is set
	// when Stop ended the run early (points then hold fewer).
	Samples     int  `json:"samples"`
	Interrupted bool `json:"interrupted"`
	// Rounds is how many repetitions were asked for; Repetitions are those
	// that ran, each a whole measurement of every point.
	Rounds      int          `json:"rounds"`
	Repetitions []Repetition `json:"repetitions"`
	// TimerSlack is the measuring thread's timer slack during the run.
	TimerSlack time.Duration `json:"timer_slack_ns"`
	Elapsed    time.Duration `json:"elapsed_ns"`
}

// Repetition is one whole measurement of every point.
type Repetition struct {
	// Round is the repetition's number, from 1.
	Round int `json:"round"`
	// Points are as Result's, measured in this repetition alone.
	Points      []Point       `json:"points"`
	Interrupted bool          `json:"interrupted"`
	Elapsed     time.Duration `json:"elapsed_ns"`
}

// maxInterrupted bounds the discarded samples of one point, so that a
// stream of signals ends the run instead of prolonging it forever.
const maxInterrupted = 1000

// Run measures every mechanism at every timeout, on one locked OS thread.
func (p *Prepared) Run(obs Observers) (*Result, error) {
	cfg := p.cfg
	// The thread's slack is the thread's: keep this goroutine on it, and
	// put the slack back before the thread serves anyone else.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The thread sleeps in raw system calls (rawWait): lend the runtime a P
	// for it, as the harness does for its reader.
	_, release := osthread.LendPs(1)
	defer release()
	slack, err := timerSlack()
	if err != nil {
		return nil, err
	}
	if cfg.Slack > 0 {
		if err := setTimerSlack(cfg.Slack); err != nil {
			return nil, err
		}
		defer setTimerSlack(slack)
		if slack, err = timerSlack(); err != nil {
			return nil, err
		}
	}
	in, err := newIdle()
	if err != nil {
		return nil, err
	}
	defer in.close()
	res := &Result{Samples: cfg.Samples, TimerSlack: slack, Rounds: cfg.Rounds}
	sleepers := make([]sleeper, len(cfg.Mechanisms))
	for i, m := range cfg.Mechanisms {
		s, err := newSleeper(m, in)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", m, err)
		}
		defer s.close()
		sleepers[i] = s
	}
	t0 := time.Now()
	defer func() { res.Elapsed = time.Since(t0) }()
	for r := 1; r <= cfg.Rounds && !res.Interrupted; r++ {
		if obs.OnRound != nil {
			obs.OnRound(r)
		}
		rep := Repetition{Round: r}
		for _, m := range cfg.Mechanisms {
			for _, d := range cfg.Timeouts {
				rep.Points = append(rep.Points, Point{Mechanism: m, Requested: d, Overshoots: make([]time.Duration, 0, cfg.Samples)})
			}
		}
		r0 := time.Now()
		err := measure(&cfg, obs.Stop, sleepers, &rep)
		rep.Elapsed = time.Since(r0)
		for i := range rep.Points {
			summarize(&rep.Points[i])
		}
		res.Interrupted = rep.Interrupted
		res.Repetitions = append(res.Repetitions, rep)
		res.Points = MedianPoints(res.Repetitions)
		if err != nil {
			if cfg.Rounds > 1 {
				err = fmt.Errorf("round %d: %w", r, err)
			}
			return res, err
		}
	}
	return res, nil
}

// measure takes the samples round by round: each round visits every point
// once, starting one point further on than the round before
// (rounds.Turned).
func measure(cfg *Config, stop <-chan struct{}, sleepers []sleeper, res *Repetition) error {
	nt := len(cfg.Timeouts)
	for round := range cfg.Samples {
		select {
		case <-stop:
			res.Interrupted = true
			return nil
		default:
		}
		for _, i := range rounds.Turned(len(res.Points), round+1) {
			p := &res.Points[i]
			if err := sample(sleepers[i/nt], p); err != nil {
				return fmt.Errorf("%v, %v timeout: %w", p.Mechanism, p.Requested, err)
			}
		}
	}
	return nil
}

// sample adds one overshoot to p, retrying a sleep a signal cut short.
//
// Before each sleep it yields (runtime.Gosched), outside the measured time:
// a raw sleep keeps its P, so the runtime's sysmon counts the sleeper as a
// goroutine that has been running since it last yielded, and signals it
// every 10 ms to preempt it. Yielding between samples restarts that count,
// so that only a sleep that itself outlasts 10 ms is cut short.
func sample(s sleeper, p *Point) error {
	for {
		runtime.Gosched()
		t0 := time.Now()
		err := s.sleep(p.Requested)
		took := time.Since(t0)
		if errors.Is(err, unix.EINTR) {
			p.Interrupted++
			if p.Interrupted > maxInterrupted {
				return fmt.Errorf("more than %d sleeps interrupted by signals", maxInterrupted)
			}
			continue
		}
		if err != nil {
			return err
		}
		p.Overshoots = append(p.Overshoots, took-p.Requested)
		p.Samples++
		return nil
	}
}

// summarize fills p's quantiles from its samples.
func summarize(p *Point) {
	if len(p.Overshoots) == 0 {
		return
	}
	xs := make([]float64, len(p.Overshoots))
	for i, d := range p.Overshoots {
		xs[i] = float64(d)
	}
	slices.Sort(xs)
	q := func(f float64) time.Duration { return time.Duration(stat.Quantile(f, stat.Empirical, xs, nil)) }
	p.Min, p.Max = time.Duration(xs[0]), time.Duration(xs[len(xs)-1])
	p.P50, p.P99 = q(0.5), q(0.99)
	p.Mean = time.Duration(stat.Mean(xs, nil))
}

// timerSlack is the calling thread's timer slack.
func timerSlack() (time.Duration, error) {
	ns, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return 0, fmt.Errorf("prctl PR_GET_TIMERSLACK: %w", err)
	}
	return time.Duration(ns), nil
}

func setTimerSlack(d time.Duration) error {
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(d), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_TIMERSLACK %v: %w", d, err)
	}
	return nil
}
