package seeds

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
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
// the figure here, their ratio, the verdict, the claim), then each row's
// unit, sources, why and command, the failures, and the machine line.
func (d *Doc) WriteText(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
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
	p("%3s %-4s %9s %9s %9s  %-15s %s", "#", "seed", "seed's", "here", "here/seed", "verdict", "claim")
	for i, r := range d.Rows {
		p("%3d %-4s %9s %9s %9s  %-15s %s", i+1, r.Seed, opt(r.Theirs), opt(r.Here), opt(r.Ratio), r.Verdict, r.Claim)
	}
	p("")
	for i, r := range d.Rows {
		p("%3d. %s", i+1, r.Unit)
		p("     seed's: %s", r.TheirsFrom)
		if r.HereFrom != "" {
			p("     here:   %s", r.HereFrom)
		}
		p("     %s: %s", r.Verdict, r.Why)
		p("     run:    %s", r.Command)
	}
	for _, f := range d.Failures {
		p("failed: %s", f)
	}
	p("verdicts: a ratio differs from 1 when it is more than %.0f%% away (pipebench's rule; the seeds state none)", 100*Margin)
	p("machine        %s", record.MachineLine(d.Environment, 0, ""))
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
