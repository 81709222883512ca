package seeds

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/text"
)

// Doc is what pipebench seeds reports: each seed's claim beside this
// machine.
type Doc struct {
	record.Head
	*Result
}

// NewDoc describes res, measured on env.
func NewDoc(rec record.Head, res *Result) *Doc {
	return &Doc{Head: rec, Result: res}
}

// opt prints an optional figure with four significant digits, or "-".
func opt(x *float64) string {
	if x == nil {
		return "-"
	}
	return text.Ratio(*x)
}

// WriteText writes the table (a row per claim: seed, the seed's figure,
// the figure here, their ratio, the verdict), then each row's claim, unit,
// sources, why and command, the failures, and the machine, at most
// text.Width columns.
func (d *Doc) WriteText(w io.Writer) error {
	p := func(format string, a ...any) {
		for _, l := range text.Fit(fmt.Sprintf(format, a...), text.Width) {
			fmt.Fprintf(w, "%s\n", l)
		}
	}
	// item writes a row's detail, label and text, wrapped under the text.
	item := func(label, s string) {
		for _, l := range text.WrapIndent(s, text.Width, "     "+label, strings.Repeat(" ", 5+len(label))) {
			fmt.Fprintf(w, "%s\n", l)
		}
	}
	state := "measured"
	if d.Interrupted {
		state = "interrupted"
	}
	rounds := ""
	if d.Rounds > 1 {
		rounds = fmt.Sprintf(", %d rounds: each figure here the median of its runs", d.Rounds)
	}
	p("--- the seeds beside this machine (%s plan: %v runs, -i %v, %d warm-up%s), %v %s",
		d.Plan.Name, d.Plan.Run, d.Plan.Interval, d.Plan.Warmup, rounds, d.Elapsed.Round(time.Second), state)
	p("%3s %-4s %9s %9s %9s  %s", "#", "seed", "seed's", "here", "here/seed", "verdict")
	for i, r := range d.Rows {
		p("%3d %-4s %9s %9s %9s  %s", i+1, r.Seed, opt(r.Theirs), opt(r.Here), opt(r.Ratio), r.Verdict)
	}
	p("")
	for i, r := range d.Rows {
		for _, l := range text.WrapIndent(r.Claim+": "+r.Unit, text.Width, fmt.Sprintf("%3d. ", i+1), "     ") {
			fmt.Fprintf(w, "%s\n", l)
		}
		item("seed's: ", r.TheirsFrom)
		if r.HereFrom != "" {
			item("here:   ", r.HereFrom)
		}
		item(string(r.Verdict)+": ", r.Why)
		item("run:    ", r.Command)
	}
	for _, f := range d.Failures {
		p("failed: %s", f)
	}
	p("verdicts: a ratio differs from 1 when it is more than %.0f%% away (pipebench's rule; the seeds state none)", 100*Margin)
	for _, l := range record.MachineLines(d.Environment, false) {
		fmt.Fprintf(w, "%s\n", l)
	}
	return d.Head.WriteLines(w)
}

// WriteCSV writes a row per claim; with several rounds, a last column says
// how many runs the figure here rests on.
func (d *Doc) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"seed", "claim", "unit", "theirs", "theirs_from", "here", "here_from", "ratio", "verdict", "why", "command"}
	if d.Rounds > 1 {
		head = append(head, "runs")
	}
	_ = cw.Write(head)
	f := func(x *float64) string {
		if x == nil {
			return ""
		}
		return strconv.FormatFloat(*x, 'g', -1, 64)
	}
	for _, r := range d.Rows {
		rec := []string{r.Seed, r.Claim, r.Unit, f(r.Theirs), r.TheirsFrom, f(r.Here), r.HereFrom, f(r.Ratio), string(r.Verdict), r.Why, r.Command}
		if d.Rounds > 1 {
			rec = append(rec, strconv.Itoa(r.Runs))
		}
		_ = cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}
