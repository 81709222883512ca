package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/text"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// Formats are the formats of pipebench cmpstat.
var Formats = []string{"text", "markdown", "csv", "json"}

// Write writes c in format, one of Formats.
func Write(w io.Writer, format string, c *Comparison) error {
	switch format {
	case "text":
		return c.writeTables(w, false)
	case "markdown":
		return c.writeTables(w, true)
	case "csv":
		return c.WriteCSV(w)
	case "json":
		return record.WriteJSON(w, c)
	}
	return fmt.Errorf("unknown format %q: want %s", format, strings.Join(Formats, ", "))
}

// TextWidth is the widest line of compare's text: it is pasted into mail.
const TextWidth = 100

// pct prints a share as a signed percentage to one decimal.
func pct(x float64) string {
	if !text.Finite(x) {
		return "?"
	}
	if math.Abs(x) >= 1 {
		return fmt.Sprintf("%+.0f%%", 100*x)
	}
	return fmt.Sprintf("%+.1f%%", 100*x)
}

// cell is a column's centre and the half-width of its interval, or n<6
// where there are too few runs for one.
func cell(s cmpstat.Summary) string {
	if s.N == 0 {
		return "-"
	}
	sp := s.Spread()
	if math.IsInf(sp, 1) {
		return text.Num(s.Median) + " n<6"
	}
	if sp >= 10 {
		return text.Num(s.Median) + " ±>999%"
	}
	return fmt.Sprintf("%s ±%.0f%%", text.Num(s.Median), 100*sp)
}

// changeText is a change and its interval.
func changeText(c cmpstat.Change) string {
	if !text.Finite(c.Ratio) {
		return "-"
	}
	if !text.Finite(c.Lo) || !text.Finite(c.Hi) {
		return pct(c.Ratio) + " [no interval]"
	}
	return fmt.Sprintf("%s [%s, %s]", pct(c.Ratio), pct(c.Lo), pct(c.Hi))
}

// pText is the p-value a row is judged by, under the column's head "p":
// adjusted (Benjamini-Hochberg) for all but the primary figure.
func pText(c cmpstat.Change) string {
	p := c.P
	if text.Finite(c.Adjusted) {
		p = c.Adjusted
	}
	return strings.TrimPrefix(pValue(p), "p=")
}

// pValue prints a p-value to three decimals, "" for none.
func pValue(p float64) string {
	switch {
	case !text.Finite(p):
		return ""
	case p < 0.0005:
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// tables writes a comparison's text or markdown: what each column is, the
// configurations one by one, the geomeans, the legend.
type tables struct {
	c        *Comparison
	ew       *text.Printer
	markdown bool
	// notes are the tests' notes, each with the figures it is of; metrics
	// every figure the tables show.
	notes   map[string][]string
	metrics []string
}

// h writes a line of prose, wrapped at TextWidth (text) or as a paragraph
// (markdown); a line that begins with spaces keeps them on every line.
func (t *tables) h(format string, a ...any) {
	if t.markdown {
		t.ew.Printf(format+"\n\n", a...)
		return
	}
	lead := ""
	s := fmt.Sprintf(format, a...)
	if tr := strings.TrimLeft(s, " "); tr != s {
		lead, s = s[:len(s)-len(tr)], tr
	}
	for _, l := range text.Wrap(s, TextWidth-len(lead)) {
		t.ew.Printf("%s%s\n", lead, l)
	}
}

// note keeps a test's note n of figure metric, to say once at the end.
// The note that there are too few runs for a median's interval is left to
// the cells' n<6.
func (t *tables) note(n, metric string) {
	if !slices.Contains(t.metrics, metric) {
		t.metrics = append(t.metrics, metric)
	}
	if n == "" || strings.HasPrefix(n, "need >= 6 samples for confidence interval") {
		return
	}
	if !slices.Contains(t.notes[n], metric) {
		t.notes[n] = append(t.notes[n], metric)
	}
}

// writeTables writes the comparison as text (at most 100 columns, to
// paste into a mail) or markdown.
func (c *Comparison) writeTables(w io.Writer, markdown bool) error {
	t := &tables{c: c, ew: &text.Printer{W: w}, markdown: markdown, notes: map[string][]string{}}
	t.head()
	for _, cr := range c.Configs {
		t.config(&cr)
	}
	t.geomeans()
	if len(c.Partial) > 0 {
		t.ew.Printf("\n")
		t.h("configurations not in every column (not compared):")
		for _, p := range c.Partial {
			t.h("  %s: only in %s", p.Label, strings.Join(p.In, ", "))
		}
	}
	t.crossings()
	t.legend()
	if t.ew.Err() == nil {
		t.ew.Keep(c.Head.WriteLines(w))
	}
	return t.ew.Err()
}

// head writes what each column is, what differs, the warnings, and what
// the verdicts cover.
func (t *tables) head() {
	c := t.c
	if c.By != "" {
		in := c.Inputs[0]
		t.h("pipebench compare -by %s: %s", c.By, in.Path)
		t.h("  %s", in.Command)
		t.h("  %s, %s, pipebench %s", in.Started, in.Machine, in.Build)
		for _, in := range c.Inputs {
			if in.Value != "" {
				t.h("%s  -%s %s", in.Label, c.By, in.Value)
			}
		}
	} else {
		wide := 0
		for _, in := range c.Inputs {
			wide = max(wide, len(in.Label))
		}
		for _, in := range c.Inputs {
			t.h("%-*s  %s: %s", wide, in.Label, in.Path, in.Command)
			t.h("%s   %s, %s, pipebench %s", strings.Repeat(" ", wide), in.Started, in.Machine, in.Build)
		}
	}
	for _, d := range c.Differences {
		var vs []string
		for i, v := range d.Values {
			if v == "" {
				v = "(none)"
			}
			vs = append(vs, c.Inputs[i].Label+" "+v)
		}
		t.h("differs: %s: %s", d.What, strings.Join(vs, "; "))
	}
	for _, wn := range c.Warnings {
		t.h("warning: %s", wn)
	}
	if len(c.Sides) < 2 {
		return
	}
	floor := fmt.Sprintf("%.1f%%", 100*c.Floor)
	switch {
	case c.OneSitting:
		t.h("every column ran in one sitting (one boot, one quiet window), in alternating rounds: a verdict covers that sitting; "+
			"no change under the %s floor (-floor) is called better or worse", floor)
	case c.Sittings:
		t.h("each record is a sitting (a boot or quiet window of its own): changes are judged over the sittings of each side, not their runs; "+
			"no change under the floor is called: -floor %s, or the figure's spread between sittings where larger", floor)
	default:
		who := "one record a side"
		var single []string
		for _, sd := range c.Sides {
			if len(sd.Records) == 1 {
				single = append(single, sd.Label)
			}
		}
		if len(single) < len(c.Sides) {
			who = "one record on side " + strings.Join(single, ", ") + " (its runs and the others' compared as runs)"
		}
		t.h("%s: how far sittings (boots or quiet windows) differ is unknown, so a verdict covers only drift inside each sitting "+
			"(two records a side or more measure it); no change under the %s floor (-floor) is called better or worse", who, floor)
	}
}

// config writes one configuration: for each later column its verdict on
// the primary figure and its table, then the advice.
func (t *tables) config(cr *ConfigRows) {
	c := t.c
	t.ew.Printf("\n")
	title := cr.Label
	if title == "" {
		title = "(one configuration)"
	}
	if t.markdown {
		title = "### " + title
	}
	t.h("%s", title)
	if cr.LeftOut != nil {
		var parts []string
		for i, n := range cr.LeftOut {
			parts = append(parts, fmt.Sprintf("%s %d", c.Sides[i].Label, n))
		}
		t.h("runs left out (failed or interrupted): %s", strings.Join(parts, ", "))
	}
	if len(c.Sides) == 1 {
		t.single(cr)
		t.advice(cr.Advice)
		return
	}
	base := c.Sides[0].Label
	for j := 1; j < len(c.Sides); j++ {
		if j > 1 {
			t.ew.Printf("\n")
		}
		t.verdict(cr, j)
		tb := &text.Table{Head: []string{"metric", colHead(base, cr.Rows[0].Summaries[0]), colHead(c.Sides[j].Label, cr.Rows[0].Summaries[j]),
			"change [95% CI]", "", "p"}, Right: []bool{false, true, true, false, false, false}}
		for _, r := range cr.Rows {
			ch := r.Changes[j-1]
			tb.Rows = append(tb.Rows, []string{r.Metric, cell(r.Summaries[0]), cell(r.Summaries[j]), changeText(ch), string(ch.Verdict), pText(ch)})
			t.note("", r.Metric)
			for _, n := range ch.Notes {
				t.note(n, r.Metric)
			}
			for _, s := range []cmpstat.Summary{r.Summaries[0], r.Summaries[j]} {
				for _, n := range s.Warnings {
					t.note(n, r.Metric)
				}
			}
		}
		tb.Write(t.ew, t.markdown)
	}
	t.advice(cr.Advice)
}

// single writes the table of one column alone: medians, ranges, runs.
func (t *tables) single(cr *ConfigRows) {
	tb := &text.Table{Head: []string{"metric", t.c.Sides[0].Label, "min", "max", "n"}, Right: []bool{false, true, true, true, true}}
	for _, r := range cr.Rows {
		s := r.Summaries[0]
		tb.Rows = append(tb.Rows, []string{r.Metric, cell(s), text.Num(s.Min), text.Num(s.Max), strconv.Itoa(s.N)})
		t.note("", r.Metric)
		for _, n := range s.Warnings {
			t.note(n, r.Metric)
		}
	}
	tb.Write(t.ew, t.markdown)
}

// colHead heads a column: its label and runs, or sittings × runs each.
func colHead(label string, s cmpstat.Summary) string {
	if s.Sittings > 1 {
		if s.N%s.Sittings == 0 {
			return fmt.Sprintf("%s %d×%d", label, s.Sittings, s.N/s.Sittings)
		}
		return fmt.Sprintf("%s n=%d in %d", label, s.N, s.Sittings)
	}
	return fmt.Sprintf("%s n=%d", label, s.N)
}

// verdictWords are what a verdict on the primary figure reads as.
var verdictWords = map[cmpstat.Verdict]string{
	cmpstat.Better: "better", cmpstat.Worse: "worse", cmpstat.Changed: "changed",
	cmpstat.Same: "no change called", cmpstat.TooFew: "too few runs or sittings to tell",
}

// verdict writes the line that answers the comparison's question: column
// j's change of the primary figure, and why it reads as it does.
func (t *tables) verdict(cr *ConfigRows, j int) {
	i := slices.IndexFunc(cr.Rows, func(r Row) bool { return r.Primary })
	if i < 0 {
		return
	}
	ch := cr.Rows[i].Changes[j-1]
	why := fmt.Sprintf("%s, floor %.1f%%", ch.Method, 100*ch.Floor)
	if text.Finite(ch.P) {
		why = pValue(ch.P) + ", " + why
	}
	t.h("%s vs %s, %s: %s: %s (%s)", t.c.Sides[j].Label, t.c.Sides[0].Label, cr.Primary, changeText(ch), verdictWords[ch.Verdict], why)
}

// geomeans writes each figure's geomean over the configurations.
func (t *tables) geomeans() {
	c := t.c
	if len(c.Geomeans) == 0 {
		return
	}
	t.ew.Printf("\n")
	t.h("geomean over the configurations every column has")
	head := []string{"metric"}
	right := []bool{false}
	base := c.Sides[0].Label
	for i, sd := range c.Sides {
		head, right = append(head, sd.Label), append(right, true)
		if i > 0 {
			head, right = append(head, sd.Label+" vs "+base), append(right, true)
		}
	}
	tb := &text.Table{Head: head, Right: right}
	for _, g := range c.Geomeans {
		row := []string{g.Metric}
		for i, v := range g.Values {
			row = append(row, text.Num(v))
			if i > 0 {
				row = append(row, pct(g.Changes[i-1]))
			}
		}
		tb.Rows = append(tb.Rows, row)
	}
	tb.Write(t.ew, t.markdown)
}

// legend says how to read the tables, and the tests' notes, each with its
// figures.
func (t *tables) legend() {
	c := t.c
	t.ew.Printf("\n")
	if len(c.Sides) == 1 {
		t.h("median ±: the half-width of the median's 95%% confidence interval; n<6: too few runs for one; " +
			"cs/evt: context switches per event")
	} else {
		t.h("median ±: the half-width of its 95%% confidence interval, n<6: too few runs for one (with several sittings "+
			"a side: the geometric mean of the sittings' means, its t interval); change: %s's over %s's, less 1, with its 95%% interval "+
			"(Hodges-Lehmann over runs, or Welch's t over sittings); better/worse: significant at alpha 0.05 (Mann-Whitney U "+
			"over runs, or Welch's t over sittings) and larger than the floor, read by the figure's direction (changed: no better "+
			"way); the line above each table judges the primary figure alone, the other rows are judged on p-values adjusted "+
			"over them (Benjamini-Hochberg); ~: not called; too few: the test cannot reject with so few; cs/evt: context switches per event",
			c.Sides[len(c.Sides)-1].Label, c.Sides[0].Label)
	}
	var ns []string
	for n := range t.notes {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	for _, n := range ns {
		of := strings.Join(t.notes[n], ", ")
		if len(t.notes[n]) == len(t.metrics) && len(t.metrics) > 1 {
			of = "every figure"
		}
		t.h("note: %s: %s", of, n)
	}
}

// WriteCSV writes a row per configuration, metric and column.
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"configuration", "metric", "direction", "primary", "column", "sittings", "n", "median", "ci_lo", "ci_hi", "min", "max",
		"change", "change_ci_lo", "change_ci_hi", "p", "p_adjusted", "floor", "verdict"})
	f := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	for _, cr := range c.Configs {
		for _, r := range cr.Rows {
			for i, s := range r.Summaries {
				rec := []string{cr.Label, r.Metric, r.Direction, strconv.FormatBool(r.Primary), c.Sides[i].Label, strconv.Itoa(s.Sittings),
					strconv.Itoa(s.N), f(s.Median), f(s.Lo), f(s.Hi), f(s.Min), f(s.Max)}
				if i > 0 {
					ch := r.Changes[i-1]
					rec = append(rec, f(ch.Ratio), f(ch.Lo), f(ch.Hi), f(ch.P), f(ch.Adjusted), f(ch.Floor), string(ch.Verdict))
				} else {
					rec = append(rec, "", "", "", "", "", "", "")
				}
				cw.Write(rec)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write comparison csv: %w", err)
	}
	return nil
}

// writeAdvice says how many sittings and runs the configuration's
// primary figure asks for.
func (t *tables) advice(a *Advice) {
	if a == nil {
		return
	}
	needs := func(n cmpstat.Need, first bool) string {
		switch {
		case a.Between == nil && n.Runs == 0:
			return fmt.Sprintf("a %.0f%% change more than %d runs", 100*n.Change, ResolveMax)
		case a.Between == nil && first:
			return fmt.Sprintf("a %.0f%% change takes %d runs a side to be found 80%% of the time", 100*n.Change, n.Runs)
		case a.Between == nil:
			return fmt.Sprintf("a %.0f%% change %d", 100*n.Change, n.Runs)
		case n.Sittings == 0:
			return fmt.Sprintf("a %.0f%% change more than %d sittings", 100*n.Change, cmpstat.MaxSittings)
		case first:
			return fmt.Sprintf("a %.0f%% change takes %d sittings of %d runs a side to be found 80%% of the time",
				100*n.Change, n.Sittings, n.Runs)
		}
		return fmt.Sprintf("a %.0f%% change %d of %d", 100*n.Change, n.Sittings, n.Runs)
	}
	var parts []string
	for i, n := range a.Needs {
		parts = append(parts, needs(n, i == 0))
	}
	if a.Between == nil {
		t.h("%s spreads ±%.1f%% between runs of a sitting, between sittings unknown: inside one sitting %s",
			a.Metric, 100*a.Within, strings.Join(parts, ", "))
		return
	}
	t.h("%s spreads ±%.1f%% between sittings and ±%.1f%% between runs of one: %s",
		a.Metric, 100**a.Between, 100*a.Within, strings.Join(parts, ", "))
}
