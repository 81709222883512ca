package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/pipebench/pipebench/experiment/timeout"
)

// WriteTimeoutHead writes the text format's line before a timeout
// measurement starts.
func WriteTimeoutHead(w io.Writer, cfg timeout.Config) {
	fmt.Fprintf(w, "timeout: %d mechanisms x %d timeouts, %d samples each\n", len(cfg.Mechanisms), len(cfg.Timeouts), cfg.Samples)
}

// TimeoutDoc is what pipebench timeout reports.
type TimeoutDoc struct {
	Record
	*timeout.Result
}

// NewTimeoutDoc describes res, measured on env.
func NewTimeoutDoc(rec Record, res *timeout.Result) *TimeoutDoc {
	return &TimeoutDoc{Record: rec, Result: res}
}

// WriteText writes a row per mechanism and requested timeout: the
// overshoot's minimum, quantiles and maximum.
func (d *TimeoutDoc) WriteText(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	state := "measured"
	if d.Interrupted {
		state = "interrupted"
	}
	p("--- overshoot = actual - requested (monotonic clock), %d samples per point, timer slack %v, %v %s",
		d.Samples, d.TimerSlack, d.Elapsed.Round(time.Millisecond), state)
	p("%-14s %10s %10s %10s %10s %10s", "mechanism", "requested", "min", "p50", "p99", "max")
	interrupted := 0
	ns := func(d time.Duration) string { return Nanos(float64(d)) }
	for _, pt := range d.Points {
		p("%-14s %10v %10s %10s %10s %10s", pt.Mechanism, pt.Requested, ns(pt.Min), ns(pt.P50), ns(pt.P99), ns(pt.Max))
		interrupted += pt.Interrupted
	}
	if interrupted > 0 {
		p("sleeps cut short by a signal (EINTR), discarded and taken again: %d", interrupted)
	}
	p("machine        %s", MachineLine(d.Environment, 1, "")) // the measuring thread's P
	return writeRecordLines(w, &d.Record)
}

// WriteCSV writes a row per mechanism and requested timeout, in
// nanoseconds.
func (d *TimeoutDoc) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"mechanism", "requested_ns", "samples", "interrupted", "min_ns", "p50_ns", "p99_ns", "max_ns", "mean_ns", "timer_slack_ns"})
	i64 := func(d time.Duration) string { return strconv.FormatInt(int64(d), 10) }
	for _, pt := range d.Points {
		_ = cw.Write([]string{pt.Mechanism.String(), i64(pt.Requested), strconv.Itoa(pt.Samples), strconv.Itoa(pt.Interrupted),
			i64(pt.Min), i64(pt.P50), i64(pt.P99), i64(pt.Max), i64(pt.Mean), i64(d.TimerSlack)})
	}
	cw.Flush()
	return cw.Error()
}
