package sweep

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress shows how far a sweep has got: on a terminal, a bar redrawn in
// place (points done/total, the point running, elapsed time and an
// estimate of the time left); elsewhere, one plain line per finished point,
// which logs and CI keep readably.
type Progress struct {
	mu  sync.Mutex
	w   io.Writer
	bar *progressbar.ProgressBar // nil: plain lines
	// guess is the time one point is expected to take before any has
	// finished (the run's duration).
	guess time.Duration
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// NewProgress shows the progress of a sweep of total points on w, as a bar
// when terminal is set. guess is how long one point should take.
func NewProgress(w io.Writer, terminal bool, total int, guess time.Duration) *Progress {
	p := &Progress{w: w, guess: guess}
	if terminal && total > 0 {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("sweep "),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(24),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(false), // ours knows a point's length; see ETA
			progressbar.OptionUseANSICodes(true),
			progressbar.OptionSetRenderBlankState(true),
		)
	}
	return p
}

// Event takes a sweep event (use it as Options.OnEvent).
func (p *Progress) Event(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	eta := ETA(e, p.guess)
	if p.bar != nil {
		desc := fmt.Sprintf("%s · ETA %v ", e.Key, eta.Round(time.Second))
		if e.Kind == Finished {
			desc = fmt.Sprintf("ETA %v ", eta.Round(time.Second))
		}
		p.bar.Describe(desc)
		if e.Kind == Finished {
			p.bar.Add(1)
		}
		return
	}
	if e.Kind != Finished {
		return
	}
	what := ""
	switch {
	case e.Point != nil:
		what = fmt.Sprintf("%.0f evts/sec", e.Point.EventsPerSec)
	default:
		what = "skipped: " + e.Skipped
	}
	fmt.Fprintf(p.w, "sweep %d/%d (%v elapsed, ETA %v): %s: %s\n", e.Done, e.Total,
		e.Elapsed.Round(time.Second), eta.Round(time.Second), e.Key, what)
}

// Close takes the bar off the terminal, so that what follows starts on a
// clean line.
func (p *Progress) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Exit()
		p.bar.Clear()
		p.bar = nil
	}
}

// ETA estimates the time a sweep still needs at event e: the points left
// times the mean time of the points done so far (guess before any is done),
// less what the running point has already taken.
func ETA(e Event, guess time.Duration) time.Duration {
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
