package seeds

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/experiment/report"
	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/experiment/timeout"
	"github.com/pipebench/pipebench/internal/profile"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// Options are how a reproduction runs.
type Options struct {
	// Backends are the factories by name: "poll", "epoll", "epoll-et" and
	// "uring" are needed (the bypass is pipebench.Bypass). Seed 001's rows
	// run epoll-et: the first epoll_pipe_bench registered its pipes
	// edge-triggered; seed 002's run uring, whose wait has a minimum wait.
	Backends map[string]*pipebench.Factory
	// Stop, when closed, ends the running step and skips the rest; the
	// rows then say which figures are missing.
	Stop <-chan struct{}
	// OnProgress hears about every step as it starts, each of its
	// intervals and its end, as a sweep's progress (Progress.Name names
	// the step). Calls come from one goroutine at a time.
	OnProgress func(sweep.Progress)
	// Run measures one prepared pipebench run; its Prepared's Run unless
	// set.
	Run func(*pipebench.Prepared, pipebench.Observers) (*pipebench.Result, error)
	// Names write the settings of a step's refusal (the command's are its
	// flags); nil writes the Config's own field names.
	Names pipebench.Names
	// PerfCheck says whether perf can record kernel profiles here;
	// profile.Check unless set.
	PerfCheck func() error
	// Rounds runs every step this many times (at least once), in rounds:
	// every step once a round, each time a fresh run. Each row's figure
	// here is then the median of the rounds' figures.
	Rounds int
}

// Result is a reproduction: its plan, a row per claim, and what failed.
type Result struct {
	Plan Plan `json:"plan"`
	// Rounds is how many times every step was to run (Options.Rounds).
	Rounds int   `json:"rounds"`
	Rows   []Row `json:"rows"`
	// Failures are the steps that failed, each with why; their rows say
	// not comparable. Interrupted is set when Stop ended it early.
	Failures    []string      `json:"failures,omitempty"`
	Interrupted bool          `json:"interrupted"`
	Elapsed     time.Duration `json:"elapsed_ns"`
}

// Steps is how many steps Run takes with plan p: what a progress display
// counts.
func Steps(p Plan) int {
	return 8 + 2*len(p.SweepPipes) + 1 + steps002 + 1 + 2 + 2*len(p.LatencyPipes)
}

// Run runs every step of plan p, then judges every claim. A step that
// fails is recorded in Failures and the others still run; the error
// returned is the first failure, or nil. Bad options are an error before
// any step.
func Run(p Plan, opt Options) (*Result, error) {
	for _, name := range []string{"poll", "epoll", "epoll-et", "uring"} {
		if opt.Backends[name] == nil {
			return nil, fmt.Errorf("seeds: no %s backend given", name)
		}
	}
	rounds := max(opt.Rounds, 1)
	x := &runner{plan: p, opt: opt, t0: time.Now(), total: Steps(p) * rounds, rounds: rounds}
	if x.opt.Run == nil {
		x.opt.Run = (*pipebench.Prepared).Run
	}
	if x.opt.PerfCheck == nil {
		x.opt.PerfCheck = profile.Check
	}
	x.perf = x.opt.PerfCheck()
	var perRound [][]Row
	for r := 1; r <= rounds; r++ {
		if r > 1 && x.stopped() {
			break
		}
		x.begin(r)
		x.seed001()
		x.seed004()
		x.seed000()
		x.seed002()
		x.seed003()
		perRound = append(perRound, x.rows())
	}
	res := &Result{Plan: p, Rounds: rounds, Failures: x.failures, Interrupted: x.interrupted, Elapsed: time.Since(x.t0)}
	res.Rows = mergeRounds(perRound)
	var err error
	if x.firstErr != nil {
		err = x.firstErr
	}
	return res, err
}

// runner holds a reproduction's measurements as its steps take them.
type runner struct {
	plan  Plan
	opt   Options
	t0    time.Time
	done  int
	total int
	// round is the round under way, from 1, of rounds.
	round, rounds int

	runs       map[string]outcome // pipebench runs by step name
	saturation map[string]float64 // seed 002's saturation (tokens/s) by backend
	shares     map[string]share   // pipe_poll's share of the kernel samples, by step name
	perf       error              // why perf cannot record here, or nil
	sweep      *sweep.Result
	sweepErr   error
	herd       *herd.Result
	herdErr    error
	timeout    *timeout.Result
	timeoutErr error

	failures    []string
	firstErr    error
	interrupted bool
}

// outcome is one pipebench run: its summary, or why there is none.
type outcome struct {
	res *pipebench.Result
	sum summary.Summary
	err error
}

// share is pipe_poll's share of a kernel profile's samples, or why there
// is none.
type share struct {
	value float64
	err   error
}

// begin starts round r: no step of it has run yet.
func (x *runner) begin(r int) {
	x.round = r
	x.done = (r - 1) * Steps(x.plan)
	x.runs, x.shares, x.saturation = map[string]outcome{}, map[string]share{}, map[string]float64{}
	x.sweep, x.sweepErr, x.herd, x.herdErr, x.timeout, x.timeoutErr = nil, nil, nil, nil, nil, nil
}

// errInterrupted marks a figure missing because the reproduction was
// stopped before or during its step.
var errInterrupted = errors.New("interrupted before it was measured")

func (x *runner) stopped() bool {
	if x.interrupted {
		return true
	}
	select {
	case <-x.opt.Stop:
		x.interrupted = true
		return true
	default:
		return false
	}
}

func (x *runner) emit(kind sweep.ProgressKind, name string, inStep time.Duration, p *sweep.Point) {
	if x.opt.OnProgress == nil {
		return
	}
	x.opt.OnProgress(sweep.Progress{Kind: kind, Name: name, Done: x.done, Total: x.total, Round: x.round, Rounds: x.rounds,
		Elapsed: time.Since(x.t0), InPoint: inStep, Point: p})
}

// fail records a step's failure.
func (x *runner) fail(name string, err error) {
	if x.rounds > 1 {
		name = fmt.Sprintf("round %d: %s", x.round, name)
	}
	x.failures = append(x.failures, name+": "+err.Error())
	if x.firstErr == nil {
		x.firstErr = fmt.Errorf("%s: %w", name, err)
	}
}

// step runs one step that is not a pipebench run (the herd, the timeouts)
// and counts it.
func (x *runner) step(name string, do func() error) error {
	if x.stopped() {
		x.done++
		return errInterrupted
	}
	x.emit(sweep.Started, name, 0, nil)
	t0 := time.Now()
	err := do()
	if err != nil && !errors.Is(err, errInterrupted) {
		x.fail(name, err)
	}
	x.done++
	x.emit(sweep.Finished, name, time.Since(t0), nil)
	return err
}

// config is a pipebench run of the plan's duration, interval and warm-up.
func (x *runner) config(b *pipebench.Factory, pipes, inFlight int, w pipebench.WriterMode) pipebench.Config {
	return pipebench.Config{
		Workload:  pipebench.Workload{Pipes: pipes, InFlight: inFlight, RouteSeed: 1},
		Readiness: pipebench.Readiness{Backend: b},
		Threads:   pipebench.Threads{Writer: w},
		Window:    pipebench.Window{Duration: x.plan.Run, Interval: x.plan.Interval, Warmup: x.plan.Warmup},
	}
}

// pinned pins cfg to the plan's CPU, if it has one.
func (x *runner) pinned(cfg pipebench.Config) pipebench.Config {
	if x.plan.CPU >= 0 {
		cfg.CPUs = []int{x.plan.CPU}
	}
	return cfg
}

// measure prepares and runs cfg as step name, with a kernel profile when
// kprofile is set and perf can record, and keeps its outcome. A run
// refused for the descriptor limit is not a failure: its rows say why it is
// missing.
func (x *runner) measure(name string, cfg pipebench.Config, kprofile bool) {
	if x.stopped() {
		x.runs[name] = outcome{err: errInterrupted}
		x.done++
		return
	}
	x.emit(sweep.Started, name, 0, nil)
	t0 := time.Now()
	p, err := pipebench.Prepare(cfg, 0, x.opt.Names)
	var limit *pipebench.LimitError
	o := outcome{err: err}
	switch {
	case errors.As(err, &limit):
	case err != nil:
		x.fail(name, err)
	default:
		o = x.run(name, p, kprofile, t0)
	}
	x.runs[name] = o
	x.done++
	var pt *sweep.Point
	if o.err == nil {
		point := sweep.NewPoint(sweep.Key{Backend: cfg.Backend.Name, Pipes: cfg.Pipes, InFlight: cfg.InFlight}, o.res, x.plan.Warmup)
		pt = &point
	}
	x.emit(sweep.Finished, name, time.Since(t0), pt)
}

// run runs p as step name, begun at t0, with a kernel profile when kprofile
// is set and perf can record (x.shares keeps pipe_poll's share of it), and
// returns its outcome.
func (x *runner) run(name string, p *pipebench.Prepared, kprofile bool, t0 time.Time) outcome {
	obs := pipebench.Observers{Stop: x.opt.Stop, OnInterval: func(pipebench.Interval) { x.emit(sweep.Tick, name, time.Since(t0), nil) }}
	var prof *profile.Profiler
	if kprofile && x.perf == nil {
		dir, err := os.MkdirTemp("", "pipebench-seeds")
		if err != nil {
			x.shares[name] = share{err: fmt.Errorf("kernel profile: %w", err)}
		} else {
			defer os.RemoveAll(dir)
			prof = profile.NewProfiler("", filepath.Join(dir, "kernel.pb.gz"))
			obs = report.HookProfiler(prof, p.Config(), obs)
		}
	}
	res, err := x.opt.Run(p, obs)
	o := outcome{res: res, err: err}
	if prof != nil {
		x.shares[name] = pipePollShare(prof)
		// The profile's conversion left garbage: collect it now rather
		// than during the next step's run.
		runtime.GC()
	}
	switch {
	case err != nil:
		x.fail(name, err)
	case res.Interrupted && prof != nil && x.shares[name].err != nil && !x.stopped():
		// perf failed to start and the profiler ended the run: the
		// step failed, the reproduction goes on.
		o.err = x.shares[name].err
		x.fail(name, o.err)
	case res.Interrupted:
		x.interrupted = true
		o.err = errInterrupted
	default:
		o.sum = summary.Summarize(res, x.plan.Warmup)
	}
	return o
}

// pipePollShare finishes a kernel profile and returns pipe_poll's share of
// its samples (flat: the samples taken in pipe_poll itself), in percent,
// as the seed's oprofile tables give it.
func pipePollShare(prof *profile.Profiler) share {
	saved, err := prof.Finish()
	if err != nil {
		return share{err: err}
	}
	for _, s := range saved {
		if s.Kind != profile.Kernel {
			continue
		}
		idx, err := profile.SampleIndex(s.Profile, "samples")
		if err != nil {
			return share{err: err}
		}
		t := profile.Flat(s.Profile, idx, nil)
		if t.Total == 0 {
			return share{err: errors.New("the kernel profile holds no samples")}
		}
		for _, r := range t.Rows {
			if r.Name == "pipe_poll" {
				return share{value: 100 * r.Share}
			}
		}
		return share{err: fmt.Errorf("pipe_poll was not sampled: none of the run's %d samples was taken in it", t.Total)}
	}
	return share{err: errors.New("no kernel profile was recorded (the run failed before its window)")}
}

// Step names, by seed.
const (
	s001Small1    = "001 epoll-et -n small -l 1"
	s001Small0    = "001 epoll-et -n small -l 0"
	s001Big1      = "001 epoll-et -n big -l 1"
	s001Big0      = "001 epoll-et -n big -l 0"
	s001Small0K   = "001 epoll-et -n small -l 0 -kprofile"
	s001Big0K     = "001 epoll-et -n big -l 0 -kprofile"
	s001Bypass    = "001 bypass -n 10000 -f"
	s001EpollProc = "001 epoll-et -n 10000 -l 1, writer process"
	s000Herd      = "000 herd"
	s003Timeout   = "003 timeout overshoot"
	s003ChurnPoll = "003 churn poll"
	s003ChurnEp   = "003 churn epoll"
)

func latencyStep(backend string, pipes int) string {
	return fmt.Sprintf("003 latency %s -n %d", backend, pipes)
}

// seed001: batching at Small and Big pipes, -l 1 against the unbounded
// writer (-l 0), reader and writer threads on one CPU; the bypass and epoll
// with a writer process at 10000; last, the -l 0 runs again under perf for
// their kernel profiles, apart, so that perf's cost is in no evts/sec.
// Every epoll run is edge-triggered (epoll-et), as the first
// epoll_pipe_bench registered its pipes (EPOLLET); seed 001 does not say
// that its modified version changed that.
func (x *runner) seed001() {
	epoll := x.opt.Backends["epoll-et"]
	p := x.plan
	x.measure(s001Small1, x.pinned(x.config(epoll, p.Small, 1, pipebench.WriterThread)), false)
	x.measure(s001Big1, x.pinned(x.config(epoll, p.Big, 1, pipebench.WriterThread)), false)
	x.measure(s001Bypass, x.pinned(x.config(&pipebench.Bypass, p.BigProcess, 1, pipebench.WriterAuto)), false)
	x.measure(s001EpollProc, x.pinned(x.config(epoll, p.BigProcess, 1, pipebench.WriterProcess)), false)
	x.measure(s001Small0, x.pinned(x.config(epoll, p.Small, 0, pipebench.WriterThread)), false)
	x.measure(s001Big0, x.pinned(x.config(epoll, p.Big, 0, pipebench.WriterThread)), false)
	x.measure(s001Small0K, x.pinned(x.config(epoll, p.Small, 0, pipebench.WriterThread)), true)
	x.measure(s001Big0K, x.pinned(x.config(epoll, p.bigProfiled(), 0, pipebench.WriterThread)), true)
}

// seed004: poll and epoll at the sweep's pipe counts, one token, through
// experiment/sweep. Seed 004 gives pipetest's table, not how pipetest
// forwarded its tokens: -writer self (one thread, 2N descriptors) is
// pipebench's choice, so that every size runs the same way.
func (x *runner) seed004() {
	grid := sweep.Grid{Backends: []string{"poll", "epoll"}, Pipes: x.plan.SweepPipes, InFlight: []int{1}}
	keys := grid.Keys()
	offset := x.done
	x.done += len(keys)
	if x.stopped() {
		x.sweepErr = errInterrupted
		return
	}
	var jobs []sweep.Job
	for _, k := range keys {
		j, err := sweep.NewJob(k, x.config(x.opt.Backends[k.Backend], k.Pipes, k.InFlight, pipebench.WriterSelf), x.opt.Names)
		if err != nil {
			x.sweepErr = err
			x.fail("004 sweep", err)
			return
		}
		jobs = append(jobs, j)
	}
	opt := sweep.Options{Warmup: x.plan.Warmup, Stop: x.opt.Stop, Run: x.opt.Run,
		OnProgress: func(e sweep.Progress) {
			if x.opt.OnProgress != nil {
				e.Name = "004 sweep: " + e.Key.String()
				e.Done += offset
				e.Total = x.total
				e.Round, e.Rounds = x.round, x.rounds
				e.Elapsed = time.Since(x.t0)
				x.opt.OnProgress(e)
			}
		}}
	res, err := sweep.Run(grid, jobs, opt)
	x.sweep, x.sweepErr = res, err
	if err != nil {
		x.fail("004 sweep", err)
	}
	if res != nil && res.Interrupted {
		x.interrupted = true
	}
}

// seed000: the herd, EPOLLEXCLUSIVE off then on, through experiment/herd.
func (x *runner) seed000() {
	p := x.plan
	err := x.step(s000Herd, func() error {
		cfg := herd.Config{Waiters: p.HerdWaiters, Mode: p.HerdMode, Pipes: p.HerdPipes, InFlight: p.HerdInFlight,
			RouteSeed: 1, Duration: p.Run, Interval: p.Interval}
		prepared, err := herd.Prepare(cfg, x.opt.Names)
		if err != nil {
			return err
		}
		res, err := prepared.Run(herd.Observers{Stop: x.opt.Stop})
		x.herd = res
		if err == nil && res != nil && len(res.Settings) == 2 && (res.Settings[0].Interrupted || res.Settings[1].Interrupted) {
			x.interrupted = true
			return errInterrupted
		}
		return err
	})
	x.herdErr = err
}

// seed003: timeout overshoot through experiment/timeout; poll and epoll
// under churn; write-to-read latency of poll and epoll at LatencyPipes.
func (x *runner) seed003() {
	p := x.plan
	x.timeoutErr = x.step(s003Timeout, func() error {
		prepared, err := timeout.Prepare(timeout.Config{Timeouts: p.Timeouts, Samples: p.TimeoutSamples,
			Mechanisms: []timeout.Mechanism{timeout.EpollWait, timeout.EpollPwait2, timeout.Timerfd}}, x.opt.Names)
		if err != nil {
			return err
		}
		res, err := prepared.Run(timeout.Observers{Stop: x.opt.Stop})
		x.timeout = res
		if err == nil && res.Interrupted {
			x.interrupted = true
			return errInterrupted
		}
		return err
	})
	for _, b := range []struct{ step, name string }{{s003ChurnPoll, "poll"}, {s003ChurnEp, "epoll"}} {
		cfg := x.config(x.opt.Backends[b.name], p.ChurnPipes, 1, pipebench.WriterSelf)
		cfg.Churn = p.Churn
		x.measure(b.step, cfg, false)
	}
	for _, n := range p.LatencyPipes {
		for _, b := range []string{"poll", "epoll"} {
			cfg := x.config(x.opt.Backends[b], n, 1, pipebench.WriterThread)
			cfg.Latency = true
			x.measure(latencyStep(b, n), cfg, false)
		}
	}
}
