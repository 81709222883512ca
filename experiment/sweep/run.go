package sweep

import (
	"errors"
	"fmt"
	"time"

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
	// Points are the measured points in the order they ran.
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
	// Done is how many points have finished (measured or skipped); Total is
	// the size of the grid.
	Done, Total int
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
	// Run measures one point; pipebench.Run unless set (tests set it).
	Run func(pipebench.Config) (*pipebench.Result, error)
	// Reason says how a run's error reads in the result: a caller that
	// names Config fields otherwise (the command: by its flags) renders
	// them here. err.Error() unless set.
	Reason func(error) string
}

// Run measures every job in order, each with a fresh pipebench run. A run
// refused for the descriptor limit (*pipebench.LimitError) is recorded as
// skipped and the sweep goes on. Any other failure ends the sweep: the
// result holds what was done and the error names the point. Closing
// opt.Stop ends the sweep early with what was done; that is not an error.
func Run(grid Grid, jobs []Job, opt Options) (*Result, error) {
	run, reason := opt.Run, opt.Reason
	if run == nil {
		run = pipebench.Run
	}
	if reason == nil {
		reason = func(err error) string { return err.Error() }
	}
	res := &Result{Grid: grid, Points: []Point{}}
	if len(jobs) > 0 {
		res.Settings = settingsOf(jobs[0].Config, opt.Warmup)
	}
	t0 := time.Now()
	defer func() { res.Elapsed = time.Since(t0) }()
	emit := func(e Progress) {
		if opt.OnProgress != nil {
			e.Total = len(jobs)
			e.Elapsed = time.Since(t0)
			opt.OnProgress(e)
		}
	}
	notRun := func(from int, reason string) {
		for _, j := range jobs[from:] {
			res.NotRun = append(res.NotRun, Missing{Key: j.Key, Reason: reason})
		}
	}
	for i, job := range jobs {
		if stopped(opt.Stop) {
			res.Interrupted = true
			notRun(i, "interrupted before it ran")
			return res, nil
		}
		k := job.Key
		emit(Progress{Kind: Started, Key: k, Done: i})
		p0 := time.Now()
		cfg := job.Config
		cfg.Stop = opt.Stop
		cfg.OnInterval = func(pipebench.Interval) {
			emit(Progress{Kind: Tick, Key: k, Done: i, InPoint: time.Since(p0)})
		}
		r, err := run(cfg)
		var limit *pipebench.LimitError
		switch {
		case errors.As(err, &limit):
			res.Skipped = append(res.Skipped, Missing{Key: k, Reason: reason(err)})
			emit(Progress{Kind: Finished, Key: k, Done: i + 1, InPoint: time.Since(p0), Skipped: reason(err)})
		case err != nil:
			res.Failure = &Missing{Key: k, Reason: reason(err)}
			notRun(i+1, "not run: the sweep ended at a failed run")
			return res, fmt.Errorf("%s: %w", k, err)
		case r.Interrupted:
			res.Interrupted = true
			notRun(i, "interrupted")
			return res, nil
		default:
			p := NewPoint(k, r, opt.Warmup)
			res.Points = append(res.Points, p)
			emit(Progress{Kind: Finished, Key: k, Done: i + 1, InPoint: time.Since(p0), Point: &p})
		}
	}
	return res, nil
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
		Writer: c.Writer.String(), Route: c.Route.String(), Seed: c.Seed,
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
