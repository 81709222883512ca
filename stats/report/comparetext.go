package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pipebench/pipebench/stats/compare"
)

// CompareFormats are the formats of pipebench compare.
var CompareFormats = []string{"text", "markdown", "csv", "json"}

// WriteComparison writes c in format, one of CompareFormats.
func WriteComparison(w io.Writer, format string, c *Comparison) error {
	switch format {
	case "text":
		return c.writeTables(w, false)
	case "markdown":
		return c.writeTables(w, true)
	case "csv":
		return c.WriteCSV(w)
	case "json":
		return WriteJSON(w, c)
	}
	return fmt.Errorf("unknown format %q: want %s", format, strings.Join(CompareFormats, ", "))
}

// Num prints x in four significant digits, with k or M past a thousand.
func Num(x float64) string {
	switch a := math.Abs(x); {
	case !finite(x):
		return "-"
	case a >= 999.95e3:
		return fmt.Sprintf("%.4gM", x/1e6)
	case a >= 9999.5:
		return fmt.Sprintf("%.4gk", x/1e3)
	case a >= 1 || a == 0:
		return fmt.Sprintf("%.4g", x)
	}
	// Three significant digits, without an exponent: 0.0000136.
	return strconv.FormatFloat(x, 'f', 2-int(math.Floor(math.Log10(math.Abs(x)))), 64)
}

// TextWidth is the widest line of compare's text: it is pasted into mail.
const TextWidth = 100

// wrap breaks s into lines of at most width runes at spaces, the lines
// after the first indented by four.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) > width:
			lines = append(lines, line)
			line = "    " + word
		default:
			line += " " + word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// pct prints a share as a signed percentage to one decimal.
func pct(x float64) string {
	if !finite(x) {
		return "?"
	}
	if math.Abs(x) >= 1 {
		return fmt.Sprintf("%+.0f%%", 100*x)
	}
	return fmt.Sprintf("%+.1f%%", 100*x)
}

// cell is a column's median and the half-width of its interval.
func cell(s compare.Summary) string {
	if s.N == 0 {
		return "-"
	}
	sp := s.Spread()
	if math.IsInf(sp, 1) {
		return Num(s.Median) + " ±∞"
	}
	return fmt.Sprintf("%s ±%.0f%%", Num(s.Median), 100*sp)
}

// changeText is a change and its interval.
func changeText(c compare.Change) string {
	if !finite(c.Ratio) {
		return "-"
	}
	if !finite(c.Lo) || !finite(c.Hi) {
		return pct(c.Ratio) + " [no interval]"
	}
	return fmt.Sprintf("%s [%s, %s]", pct(c.Ratio), pct(c.Lo), pct(c.Hi))
}

func pText(c compare.Change) string {
	if !finite(c.P) {
		return ""
	}
	return fmt.Sprintf("p=%.3f", c.P)
}

// table is a block of rows laid out in columns, as text or markdown.
type table struct {
	head  []string
	rows  [][]string
	right []bool // right-aligned columns
}

func (t *table) write(ew *errWriter, markdown bool) {
	if markdown {
		ew.printf("| %s |\n|", strings.Join(t.head, " | "))
		for i := range t.head {
			if t.right[i] {
				ew.printf("---:|")
			} else {
				ew.printf("---|")
			}
		}
		ew.printf("\n")
		for _, r := range t.rows {
			ew.printf("| %s |\n", strings.Join(r, " | "))
		}
		return
	}
	width := make([]int, len(t.head))
	for _, r := range append([][]string{t.head}, t.rows...) {
		for i, f := range r {
			width[i] = max(width[i], len([]rune(f)))
		}
	}
	for _, r := range append([][]string{t.head}, t.rows...) {
		var b strings.Builder
		for i, f := range r {
			pad := width[i] - len([]rune(f))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.right[i] {
				b.WriteString(strings.Repeat(" ", pad) + f)
			} else if i < len(r)-1 {
				b.WriteString(f + strings.Repeat(" ", pad))
			} else {
				b.WriteString(f)
			}
		}
		ew.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
}

// writeTables writes the comparison as text (at most 100 columns, to
// paste into a mail) or markdown.
func (c *Comparison) writeTables(w io.Writer, markdown bool) error {
	ew := &errWriter{w: w}
	h := func(format string, a ...any) {
		if markdown {
			ew.printf(format+"\n\n", a...)
			return
		}
		lead := ""
		s := fmt.Sprintf(format, a...)
		if t := strings.TrimLeft(s, " "); t != s {
			lead, s = s[:len(s)-len(t)], t
		}
		for _, l := range wrap(s, TextWidth-len(lead)) {
			ew.printf("%s%s\n", lead, l)
		}
	}
	if c.By != "" {
		h("pipebench compare -by %s: %s", c.By, c.Inputs[0].Path)
		h("  %s", c.Inputs[0].Command)
		h("  %s, %s, pipebench %s", c.Inputs[0].Started, c.Inputs[0].Machine, c.Inputs[0].Build)
		for _, in := range c.Inputs {
			if in.Value != "" {
				h("%s  -%s %s", in.Label, c.By, in.Value)
			}
		}
	} else {
		for _, in := range c.Inputs {
			h("%s  %s: %s", in.Label, in.Path, in.Command)
			h("   %s, %s, pipebench %s", in.Started, in.Machine, in.Build)
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
		h("differs: %s: %s", d.What, strings.Join(vs, "; "))
	}
	for _, wn := range c.Warnings {
		h("warning: %s", wn)
	}
	notes := map[string]bool{}
	base := c.Inputs[0].Label
	for _, cr := range c.Configs {
		ew.printf("\n")
		title := cr.Label
		if title == "" {
			title = "(one configuration)"
		}
		if markdown {
			title = "### " + title
		}
		h("%s", title)
		if cr.LeftOut != nil {
			var parts []string
			for i, n := range cr.LeftOut {
				parts = append(parts, fmt.Sprintf("%s %d", c.Inputs[i].Label, n))
			}
			h("runs left out (failed or interrupted): %s", strings.Join(parts, ", "))
		}
		if len(c.Inputs) == 1 {
			t := &table{head: []string{"metric", base, "min", "max", "n"}, right: []bool{false, true, true, true, true}}
			for _, r := range cr.Rows {
				s := r.Summaries[0]
				t.rows = append(t.rows, []string{r.Metric, cell(s), Num(s.Min), Num(s.Max), strconv.Itoa(s.N)})
				for _, n := range s.Warnings {
					notes[n] = true
				}
			}
			t.write(ew, markdown)
			writeResolve(h, cr.Resolve)
			continue
		}
		for j := 1; j < len(c.Inputs); j++ {
			if j > 1 {
				ew.printf("\n")
			}
			n0, nj := cr.Rows[0].Summaries[0].N, cr.Rows[0].Summaries[j].N
			t := &table{head: []string{"metric", fmt.Sprintf("%s n=%d", base, n0), fmt.Sprintf("%s n=%d", c.Inputs[j].Label, nj),
				"change [95% CI]", "", "p"}, right: []bool{false, true, true, false, false, false}}
			for _, r := range cr.Rows {
				ch := r.Changes[j-1]
				t.rows = append(t.rows, []string{r.Metric, cell(r.Summaries[0]), cell(r.Summaries[j]), changeText(ch), string(ch.Verdict), pText(ch)})
				for _, n := range ch.Notes {
					notes[n] = true
				}
			}
			t.write(ew, markdown)
		}
		writeResolve(h, cr.Resolve)
	}
	if len(c.Geomeans) > 0 {
		ew.printf("\n")
		h("geomean over the configurations every column has")
		head := []string{"metric"}
		right := []bool{false}
		for i, in := range c.Inputs {
			head, right = append(head, in.Label), append(right, true)
			if i > 0 {
				head, right = append(head, in.Label+" vs "+base), append(right, true)
			}
		}
		t := &table{head: head, right: right}
		for _, g := range c.Geomeans {
			row := []string{g.Metric}
			for i, v := range g.Values {
				row = append(row, Num(v))
				if i > 0 {
					row = append(row, pct(g.Changes[i-1]))
				}
			}
			t.rows = append(t.rows, row)
		}
		t.write(ew, markdown)
	}
	if len(c.Partial) > 0 {
		ew.printf("\n")
		h("configurations not in every column (not compared):")
		for _, p := range c.Partial {
			h("  %s: only in %s", p.Label, strings.Join(p.In, ", "))
		}
	}
	ew.printf("\n")
	h("median ±: the half-width of the median's 95%% confidence interval; change: the later column's median over %s's, less 1, "+
		"with the 95%% interval of the shift (Hodges-Lehmann); better/worse: significant by the Mann-Whitney U test at alpha 0.05, "+
		"~ not; too few: the test cannot reject with so few repetitions; cs/Mevt: context switches per million events", base)
	var ns []string
	for n := range notes {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	for _, n := range ns {
		h("note: %s", n)
	}
	if ew.err == nil {
		ew.err = writeRecordLines(w, &c.Record)
	}
	return ew.err
}

// WriteCSV writes a row per configuration, metric and column.
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"configuration", "metric", "direction", "column", "n", "median", "ci_lo", "ci_hi", "min", "max",
		"change", "change_ci_lo", "change_ci_hi", "p", "verdict"})
	f := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	for _, cr := range c.Configs {
		for _, r := range cr.Rows {
			for i, s := range r.Summaries {
				rec := []string{cr.Label, r.Metric, r.Direction, c.Inputs[i].Label, strconv.Itoa(s.N), f(s.Median), f(s.Lo), f(s.Hi), f(s.Min), f(s.Max)}
				if i > 0 {
					ch := r.Changes[i-1]
					rec = append(rec, f(ch.Ratio), f(ch.Lo), f(ch.Hi), f(ch.P), string(ch.Verdict))
				} else {
					rec = append(rec, "", "", "", "", "")
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

// writeResolve says how many runs the configuration's spread asks for.
func writeResolve(h func(string, ...any), r *Resolution) {
	if r == nil {
		return
	}
	runs := func(n int) string {
		if n == 0 {
			return fmt.Sprintf("more than %d", ResolveMax)
		}
		return strconv.Itoa(n)
	}
	h("evts/sec of a run spreads ±%.1f%% (robust sd): a 2%% change takes %s runs a side to be found 80%% of the time, a 5%% change %s",
		100*r.Spread, runs(r.Runs2), runs(r.Runs5))
}
