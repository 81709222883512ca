package timeout

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/text"
)

// WriteHead writes the text format's line before a timeout
// measurement starts.
func WriteHead(w io.Writer, cfg Config) {
	rounds := ""
	if cfg.Rounds > 1 {
		rounds = fmt.Sprintf(", %d rounds", cfg.Rounds)
	}
	fmt.Fprintf(w, "timeout: %d mechanisms x %d timeouts, %d samples each%s\n", len(cfg.Mechanisms), len(cfg.Timeouts), cfg.Samples, rounds)
}

// Doc is what pipebench timeout reports: with several rounds, the
// points are the medians of the repetitions, all of which it keeps.
type Doc struct {
	record.Head
	*Result
}

// NewDoc describes res, measured on env.
func NewDoc(rec record.Head, res *Result) *Doc {
	return &Doc{Head: rec, Result: res}
}

// WriteText writes a row per mechanism and requested timeout: the
// overshoot's minimum, quantiles and maximum.
func (d *Doc) WriteText(w io.Writer) error {
	p := func(format string, a ...any) {
		for _, l := range text.Fit(fmt.Sprintf(format, a...), text.Width) {
			fmt.Fprintf(w, "%s\n", l)
		}
	}
	state := "measured"
	if d.Interrupted {
		state = "interrupted"
	}
	samples := fmt.Sprintf("%d samples per point", d.Samples)
	if len(d.Repetitions) > 1 {
		samples = fmt.Sprintf("medians of %d repetitions of %d samples per point", len(d.Repetitions), d.Samples)
	}
	p("--- overshoot = actual - requested (monotonic clock), %v %s", d.Elapsed.Round(time.Millisecond), state)
	p("%s, timer slack %v", samples, d.TimerSlack)
	p("%-14s %10s %10s %10s %10s %10s", "mechanism", "requested", "min µs", "p50 µs", "p99 µs", "max µs")
	interrupted := 0
	ns := func(d time.Duration) string { return text.Ratio(float64(d) / 1e3) }
	for _, pt := range d.Points {
		p("%-14s %10v %10s %10s %10s %10s", pt.Mechanism, pt.Requested, ns(pt.Min), ns(pt.P50), ns(pt.P99), ns(pt.Max))
		interrupted += pt.Interrupted
	}
	if interrupted > 0 {
		p("sleeps cut short by a signal (EINTR), discarded and taken again: %d", interrupted)
	}
	for _, l := range record.MachineLines(d.Environment, false) {
		fmt.Fprintf(w, "%s\n", l)
	}
	return d.Head.WriteLines(w)
}

// WriteCSV writes a row per mechanism and requested timeout, in
// nanoseconds. With several rounds it writes a row per repetition and
// point, with its round in a last column.
func (d *Doc) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"mechanism", "requested_ns", "samples", "interrupted", "min_ns", "p50_ns", "p99_ns", "max_ns", "mean_ns", "timer_slack_ns"}
	i64 := func(d time.Duration) string { return strconv.FormatInt(int64(d), 10) }
	row := func(pt *Point) []string {
		return []string{pt.Mechanism.String(), i64(pt.Requested), strconv.Itoa(pt.Samples), strconv.Itoa(pt.Interrupted),
			i64(pt.Min), i64(pt.P50), i64(pt.P99), i64(pt.Max), i64(pt.Mean), i64(d.TimerSlack)}
	}
	if len(d.Repetitions) > 1 {
		_ = cw.Write(append(head, "round"))
		for _, rep := range d.Repetitions {
			for i := range rep.Points {
				_ = cw.Write(append(row(&rep.Points[i]), strconv.Itoa(rep.Round)))
			}
		}
	} else {
		_ = cw.Write(head)
		for i := range d.Points {
			_ = cw.Write(row(&d.Points[i]))
		}
	}
	cw.Flush()
	return cw.Error()
}
