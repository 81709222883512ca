package sweep

import (
	"fmt"
	"time"

	"github.com/pipebench/pipebench/internal/rounds"
	"github.com/pipebench/pipebench/pipebench"
)

// Settings are the run flags every point of a sweep shares.
type Settings struct {
	Duration string `json:"duration"`
	Interval string `json:"interval"`
	Warmup   int    `json:"warmup_intervals"`
	Writer   string `json:"writer"`
	Route    string `json:"route"`
	Seed     uint64 `json:"seed"`
	// Source, MaxEvents, Nest and Share are the run settings every point
	// shares that change what is measured (-fd, -maxevents, -nest,
	// -share); the header names those that are not the default.
	Source    string `json:"source"`
	MaxEvents int    `json:"maxevents,omitempty"`
	Nest      int    `json:"nest,omitempty"`
	Share     bool   `json:"share,omitempty"`
}

// Result is a whole sweep: what was measured, what could not be and why.
type Result struct {
	Grid     Grid     `json:"grid"`
	Settings Settings `json:"settings"`
	// Rounds is how many times every point was measured (-count); each
	// round measures every point once, in an order of its own.
	Rounds int `json:"rounds"`
	// Points are the measured points in the order they ran: with several
	// rounds, a key has a point per round.
	Points []Point `json:"points"`
	// Skipped are points that cannot run here (the descriptor limit).
	Skipped []Missing `json:"skipped,omitempty"`
	// NotRun are points left out because the sweep was interrupted or a run
	// failed; a point interrupted halfway is here too.
	NotRun []Missing `json:"not_run,omitempty"`
	// Interrupted is set when Stop ended the sweep early.
	Interrupted bool `json:"interrupted"`
	// Failure is the point whose run failed, with the error; nil if none.
	Failure *Missing      `json:"failure,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Crossings are where the sweep's curves cross (crossing.go); nil in a
	// record written before they were found.
	Crossings *Crossings `json:"crossings,omitempty"`
	// Refine is what -refine added; nil without it.
	Refine *Refine `json:"refine,omitempty"`
	// Saturation are the unbounded runs (-l 0) that measured each curve's
	// saturation, their tokens/sec, before its points, when the grid's
	// rates are fractions of it (Grid.OfSaturation; load.go).
	Saturation []Point `json:"saturation,omitempty"`
}

// ProgressKind says what a Progress reports.
type ProgressKind int

const (
	// Started: a point's run begins.
	Started ProgressKind = iota
	// Tick: the running point finished an interval.
	Tick
	// Finished: a point was measured (Point is set) or skipped (Skipped is
	// set).
	Finished
)

// Progress is what a sweep tells its progress display.
type Progress struct {
	Kind ProgressKind
	Key  Key
	// Done is how many runs have finished (measured or skipped); Total is
	// the size of the grid times the rounds.
	Done, Total int
	// Round is the round the run belongs to, of Rounds.
	Round, Rounds int
	// Elapsed is the time since the sweep began; InPoint the time since the
	// current point began.
	Elapsed, InPoint time.Duration
	Point            *Point
	Skipped          string
	// Name, when set, is what a progress display calls the point instead
	// of its Key: pipebench seeds reports its steps as points.
	Name string
}

// Options are how a sweep runs.
type Options struct {
	// Warmup leading intervals of each run are left out of its median.
	Warmup int
	// Stop, when closed, ends the running point and the sweep.
	Stop <-chan struct{}
	// OnProgress, if set, hears about every point as it starts, each of its
	// intervals and its end. Calls come from one goroutine at a time.
	OnProgress func(Progress)
	// Run measures one point; its Prepared's Run unless set (tests set
	// it).
	Run func(*pipebench.Prepared, pipebench.Observers) (*pipebench.Result, error)
	// Rounds measures every point this many times (at least once). With
	// more than one, each round runs the points in an order of its own,
	// shuffled from ShuffleSeed and the round's number, so that a drift of
	// the machine's speed falls on every point alike.
	Rounds      int
	ShuffleSeed uint64
	// Refine, when above 1, adds points after the grid inside the bracket
	// of every crossing, at its geometric middle, until the bracket's ends
	// are within a factor Refine, no pipe count lies between them, or
	// RefineBudget points have been added (refine.go). Job makes the job
	// of such a point; its error skips the point, with the reason.
	Refine       float64
	RefineBudget int
	Job          func(Key) (Job, error)
}

// Run measures every job, opt.Rounds times, each time with a fresh
// pipebench run: fresh pipes and threads. One round runs the jobs in their
// order; several run every job once a round, each round shuffled. A run
// that cannot run here (Job.Skip: the descriptor limit) is recorded as
// skipped, once, and the sweep goes on. Any other failure ends the sweep:
// the result holds what was done and the error names the point. Closing
// opt.Stop ends the sweep early with what was done; that is not an error.
// With opt.Refine, points are then added inside the crossings' brackets
// (refine.go). With rates that are fractions of saturation, each curve's
// saturation is measured first, once (load.go). The result's Crossings
// are found from whatever was measured.
func Run(grid Grid, jobs []Job, opt Options) (*Result, error) {
	s := &sweeper{opt: opt, rounds: max(opt.Rounds, 1), total: len(jobs) * max(opt.Rounds, 1), t0: time.Now()}
	if s.opt.Run == nil {
		s.opt.Run = (*pipebench.Prepared).Run
	}
	res := &Result{Grid: grid, Rounds: s.rounds, Points: []Point{}}
	s.res = res
	if len(jobs) > 0 {
		res.Settings = settingsOf(jobs[0].Config, opt.Warmup)
	}
	var refine *Refine
	if opt.Refine > 1 {
		refine = &Refine{Factor: opt.Refine, Budget: opt.RefineBudget, Added: []Key{}}
		res.Refine = refine
	}
	defer func() {
		res.Crossings = FindCrossings(res)
		res.Elapsed = time.Since(s.t0)
	}()
	more, err := true, error(nil)
	if grid.OfSaturation {
		jobs, more, err = s.saturate(jobs)
	}
	if more {
		more, err = s.runRounds(jobs, rounds.Shuffled(len(jobs), s.rounds, opt.ShuffleSeed))
	}
	if !more || refine == nil {
		return res, err
	}
	return res, s.refine(jobs)
}

// runRounds runs jobs s.rounds times, in the given orders (one a round).
// It reports whether the sweep may go on: false when it was interrupted
// or a run failed (the error).
func (s *sweeper) runRounds(jobs []Job, order [][]int) (bool, error) {
	res := s.res
	// notRun lists the runs from the i-th of round r on as not run.
	notRun := func(r, i int, reason string) {
		for ; r <= s.rounds; r, i = r+1, 0 {
			for _, j := range order[r-1][i:] {
				res.NotRun = append(res.NotRun, Missing{Key: jobs[j].Key, Round: s.round(r), Reason: reason})
			}
		}
	}
	skipped := make([]bool, len(jobs))
	for r := 1; r <= s.rounds; r++ {
		for i, j := range order[r-1] {
			if skipped[j] {
				s.done++
				continue
			}
			if stopped(s.opt.Stop) {
				res.Interrupted = true
				notRun(r, i, "interrupted before it ran")
				return false, nil
			}
			outcome, err := s.measure(jobs[j], r)
			s.done++
			switch {
			case err != nil:
				notRun(r, i+1, "not run: the sweep ended at a failed run")
				return false, err
			case outcome == skippedRun:
				skipped[j] = true
			case outcome == interruptedRun:
				res.Interrupted = true
				notRun(r, i, "interrupted")
				return false, nil
			}
		}
	}
	return true, nil
}

// sweeper is a sweep under way.
type sweeper struct {
	opt           Options
	res           *Result
	rounds, total int
	done          int // runs finished, skipped ones included
	t0            time.Time
}

// round is r as a point records it: 0 in a sweep of one round.
func (s *sweeper) round(r int) int {
	if s.rounds == 1 {
		return 0
	}
	return r
}

func (s *sweeper) emit(e Progress) {
	if s.opt.OnProgress != nil {
		e.Done, e.Total, e.Rounds = s.done+e.Done, s.total, s.rounds
		e.Elapsed = time.Since(s.t0)
		s.opt.OnProgress(e)
	}
}

// What measure did besides measuring a point.
type runOutcome int

const (
	measuredRun runOutcome = iota
	skippedRun
	interruptedRun
)

// measure runs job once, in round r, and adds what it measured, or why
// not, to the result.
func (s *sweeper) measure(job Job, r int) (runOutcome, error) {
	k, res := job.Key, s.res
	s.emit(Progress{Kind: Started, Key: k, Round: r})
	p0 := time.Now()
	if job.Prepared == nil {
		res.Skipped = append(res.Skipped, Missing{Key: k, Reason: job.Skip})
		s.emit(Progress{Kind: Finished, Key: k, Done: 1, Round: r, InPoint: time.Since(p0), Skipped: job.Skip})
		return skippedRun, nil
	}
	obs := pipebench.Observers{Stop: s.opt.Stop, OnInterval: func(pipebench.Interval) {
		s.emit(Progress{Kind: Tick, Key: k, Round: r, InPoint: time.Since(p0)})
	}}
	out, err := s.opt.Run(job.Prepared, obs)
	switch {
	case err != nil:
		res.Failure = &Missing{Key: k, Round: s.round(r), Reason: err.Error()}
		return measuredRun, fmt.Errorf("%s: %w", k, err)
	case out.Interrupted:
		return interruptedRun, nil
	}
	p := NewPoint(k, out, s.opt.Warmup)
	p.Round = s.round(r)
	res.Points = append(res.Points, p)
	s.emit(Progress{Kind: Finished, Key: k, Done: 1, Round: r, InPoint: time.Since(p0), Point: &p})
	return measuredRun, nil
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

func settingsOf(c pipebench.Config, warmup int) Settings {
	return Settings{
		Duration: c.Duration.String(), Interval: c.Interval.String(), Warmup: warmup,
		Writer: c.Writer.String(), Route: c.Route.String(), Seed: c.RouteSeed,
		Source: c.Source.String(), MaxEvents: c.MaxEvents, Nest: c.Nest, Share: c.Share,
	}
}

// ETA estimates the time a sweep still needs at progress e: the points left
// times the mean time of the points done so far (guess before any is done),
// less what the running point has already taken.
func ETA(e Progress, guess time.Duration) time.Duration {
	done, running := e.Elapsed, time.Duration(0)
	if e.Kind == Tick {
		done, running = e.Elapsed-e.InPoint, e.InPoint
	}
	per := guess
	if e.Done > 0 {
		per = done / time.Duration(e.Done)
	}
	return max(per*time.Duration(e.Total-e.Done)-running, 0)
}
