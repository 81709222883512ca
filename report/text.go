package report

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/pipebench/pipebench/pipebench"
)

// Text writes the output everyone knows: a setup line, one line per interval
// in epoll_pipe_bench's format, then a summary block.
type Text struct {
	W io.Writer
	// Warmup leading intervals are left out of the summary.
	Warmup int
	// noWait is set from the setup: the interval lines then carry evts/sec
	// alone, as the original's -f did.
	noWait bool
}

// SetupLine formats the line printed once the pipes are ready.
func SetupLine(s pipebench.Setup) string {
	how := s.Writer.String()
	if s.Reason != "" {
		how += ": " + s.Reason
	}
	return fmt.Sprintf("%d pipes setup (%s, writer %s)", s.Pipes, s.Backend, how)
}

// Setup prints the setup line.
func (t *Text) Setup(s pipebench.Setup) error {
	t.noWait = s.NoWaitCall
	_, err := fmt.Fprintln(t.W, SetupLine(s))
	return err
}

// IntervalLine formats one interval as epoll_pipe_bench did:
// "171444 evts/sec 1 samples per call".
func IntervalLine(iv pipebench.Interval, noWait bool) string {
	if noWait {
		return fmt.Sprintf("%.0f evts/sec", iv.EventsPerSec)
	}
	return fmt.Sprintf("%.0f evts/sec %s samples per call", iv.EventsPerSec, g6(iv.SamplesPerCall))
}

// g6 prints like C++'s default ostream: six significant digits, no
// trailing zeros.
func g6(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// Interval prints one interval line.
func (t *Text) Interval(iv pipebench.Interval) error {
	_, err := fmt.Fprintln(t.W, IntervalLine(iv, t.noWait))
	return err
}

// Result prints the summary block.
func (t *Text) Result(res *pipebench.Result) error {
	s := Summarize(res, t.Warmup)
	st := res.Setup
	p := func(format string, a ...any) { fmt.Fprintf(t.W, format+"\n", a...) }
	inflight := strconv.Itoa(st.InFlight)
	if st.InFlight == 0 {
		inflight = "unbounded"
	}
	p("--- %s, %d pipes, %s tokens in flight, writer %s, %s", st.Backend, st.Pipes, inflight, st.Writer, window(res))
	e := s.EventsPerSec
	if e.N > 0 {
		p("evts/sec       median %.0f  mean %.0f  95%% CI %.0f..%.0f  cv %.1f%%  (n=%d intervals, %d warm-up left out)",
			e.Median, e.Mean, e.CILow, e.CIHigh, e.CV*100, e.N, s.Warmup)
	} else {
		p("evts/sec       no full interval")
	}
	p("tokens/sec     %.0f", s.TokensPerSec)
	if s.Applies {
		tt := res.Totals
		p("samples/call   %s  (%d readiness calls, %d empty)", g6(s.SamplesPerCall), tt.Calls, tt.EmptyCalls)
	} else {
		p("samples/call   n/a  (no readiness call)")
	}
	p("per event      calls %s  reads %s  writes %s  ctl %s", g4(s.CallsPerEvent), g4(s.ReadsPerEvent), g4(s.WritesPerEvent), g4(s.CtlPerEvent))
	tk := res.Tokens
	p("tokens         sent %d  received %d  drained %d  lost %d", tk.Sent, tk.Received, tk.Drained, tk.Lost)
	for _, w := range s.Warnings {
		p("warning: %s", w)
	}
	return nil
}

func g4(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

func window(res *pipebench.Result) string {
	d := res.Elapsed.Round(time.Millisecond)
	if res.Interrupted {
		return fmt.Sprintf("interrupted after %v", d)
	}
	return fmt.Sprintf("%v measured", d)
}
