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

// Bar shows how far a sweep has got: on a terminal, a bar redrawn in
// place (points done/total, the point running, elapsed time and an
// estimate of the time left); elsewhere, one plain line per finished point,
// which logs and CI keep readably.
type Bar struct {
	mu  sync.Mutex
	w   io.Writer
	bar *progressbar.ProgressBar // nil: plain lines
	// guess is the time one point is expected to take before any has
	// finished (the run's duration).
	guess time.Duration
	// prefix starts each plain line and the bar: "sweep ".
	prefix string
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// NewBar shows the progress of total steps on w, as a bar when terminal
// is set: a sweep's points, or any subcommand's steps that report as a
// sweep's points do (Progress); what ("sweep", "seeds") names the lines
// and the bar. guess is how long one step should take.
func NewBar(w io.Writer, what string, terminal bool, total int, guess time.Duration) *Bar {
	p := &Bar{w: w, guess: guess, prefix: what + " "}
	if terminal && total > 0 {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(p.prefix),
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

// Show takes a sweep's progress (use it as Options.OnProgress).
func (p *Bar) Show(e Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	eta := ETA(e, p.guess)
	name := e.Key.String()
	if e.Name != "" {
		name = e.Name
	}
	if e.Rounds > 1 {
		name = fmt.Sprintf("round %d/%d: %s", e.Round, e.Rounds, name)
	}
	if p.bar != nil {
		if e.Total > p.bar.GetMax() {
			p.grow(e)
		}
		desc := fmt.Sprintf("%s · ETA %v ", name, eta.Round(time.Second))
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
	what := "done"
	switch {
	case e.Point != nil:
		what = fmt.Sprintf("%.0f evts/sec", e.Point.EventsPerSec)
	case e.Skipped != "":
		what = "skipped: " + e.Skipped
	}
	fmt.Fprintf(p.w, "%s%d/%d (%v elapsed, ETA %v): %s: %s\n", p.prefix, e.Done, e.Total,
		e.Elapsed.Round(time.Second), eta.Round(time.Second), name, what)
}

// grow takes the runs that -refine added into the bar's total. A bar that
// reached its old total has finished: it starts again at the runs done.
func (p *Bar) grow(e Progress) {
	p.bar.ChangeMax(e.Total)
	if p.bar.IsFinished() {
		done := e.Done
		if e.Kind == Finished {
			done-- // Show adds this one
		}
		p.bar.Reset()
		p.bar.Set(done)
	}
}

// Close takes the bar off the terminal, so that what follows starts on a
// clean line.
func (p *Bar) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Exit()
		p.bar.Clear()
		p.bar = nil
	}
}

// WriteStart writes the line before a sweep of points points of each
// duration, measured rounds times.
func WriteStart(w io.Writer, points, rounds int, each time.Duration) {
	if rounds > 1 {
		fmt.Fprintf(w, "sweep: %d points x %d rounds, -d %v each, every round in an order of its own\n", points, rounds, each)
		return
	}
	fmt.Fprintf(w, "sweep: %d points, -d %v each\n", points, each)
}

// WriteCounts writes how many points r measured and skipped, and how
// long it took.
func WriteCounts(w io.Writer, r *Result) {
	if r.Rounds > 1 {
		fmt.Fprintf(w, "sweep: %d runs measured (%d rounds), %d points skipped in %v\n", len(r.Points), r.Rounds, len(r.Skipped), r.Elapsed.Round(time.Second))
		return
	}
	fmt.Fprintf(w, "sweep: %d measured, %d skipped in %v\n", len(r.Points), len(r.Skipped), r.Elapsed.Round(time.Second))
}

// WriteInterrupted writes, when r was interrupted, how far it got of
// its points.
func WriteInterrupted(w io.Writer, r *Result, points int) {
	if r.Interrupted {
		if r.Rounds > 1 {
			fmt.Fprintf(w, "sweep: interrupted after %d of %d runs\n", len(r.Points)+len(r.Skipped), points*r.Rounds)
			return
		}
		fmt.Fprintf(w, "sweep: interrupted after %d of %d points\n", len(r.Points)+len(r.Skipped), points)
	}
}
