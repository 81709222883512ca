package sweep

import (
	"fmt"
	"math"
	"strings"

	"github.com/pipebench/pipebench/experiment/text"
	"github.com/pipebench/pipebench/stats"
)

// textWidth is the widest line of the sweep's text.
const textWidth = 80

// writeCrossings writes where the sweep's curves cross, under its table:
// a line per crossing (who overtakes whom, between which measured pipe
// counts, where by interpolation, and the interval or "not resolved"),
// then the pairs that do not cross, then what -refine did. Nothing when
// the record has no crossings (written before they were found) or no
// pair could be compared.
func writeCrossings(ew *text.Printer, r *Result) {
	if r.Crossings == nil || len(r.Crossings.Pairs) == 0 {
		return
	}
	lo, hi := math.MaxInt, 0
	var none []string
	var lines []string
	for _, p := range r.Crossings.Pairs {
		lo, hi = min(lo, p.Pipes[0]), max(hi, p.Pipes[len(p.Pipes)-1])
		if len(p.Crossings) == 0 && p.First != nil && p.Last != nil {
			lines = append(lines, aheadText(p, r.Grid))
		} else if len(p.Crossings) == 0 {
			a, b, ctx := pairNames(p.A, p.B, r.Grid)
			none = append(none, a+" and "+b+ctx)
		}
		for _, c := range p.Crossings {
			lines = append(lines, crossingText(c, r.Grid))
		}
	}
	level := fmt.Sprintf("%.0f%%", 100*r.Crossings.Level)
	head := fmt.Sprintf("crossings (on log pipes; %s intervals from %d paired rounds):", level, r.Rounds)
	if r.Rounds < 2 {
		head = "crossings (on log pipes; one run a point: no interval, -count 5 gives one):"
	}
	ew.Printf("\n")
	for _, l := range text.Wrap(head, textWidth) {
		ew.Printf("%s\n", l)
	}
	if len(none) > 0 {
		lines = append(lines, fmt.Sprintf("no crossing from %d to %d pipes: %s", lo, hi, strings.Join(none, "; ")))
	}
	if rf := r.Refine; rf != nil {
		lines = append(lines, refineText(rf, r))
	}
	for _, l := range lines {
		for _, w := range text.Wrap(l, textWidth-2) {
			ew.Printf("  %s\n", w)
		}
	}
}

// crossingText is one crossing: "epoll overtakes poll between 3 and 10
// pipes, at about 5.2 (4.1-6.8)".
func crossingText(c Crossing, g Grid) string {
	over, under, ctx := pairNames(c.Over, c.Under, g)
	s := fmt.Sprintf("%s overtakes %s%s between %.0f and %.0f pipes, ", over, under, ctx, c.From, c.To)
	switch {
	case c.Tie:
		s += fmt.Sprintf("level in between, at about %s", about(c.At))
	default:
		s += "at about " + about(c.At)
	}
	switch {
	case c.Interval:
		s += fmt.Sprintf(" (%s-%s)", about(c.Lo), about(c.Hi))
	case c.Before.N >= 2 && c.After.N >= 2 && !c.Resolved:
		at := c.From
		if !c.Before.Holds1() {
			at = c.To
		}
		s += fmt.Sprintf(": not resolved (at %s the ratio's interval holds 1)", pipesText(at))
	}
	return s
}

// aheadText is a pair that does not cross, said by the curve ahead: "no
// crossing: epoll ahead of poll from 1 to 100 pipes, by 1.08x (1.03-1.13)
// at 1 pipe and 7.1x (6.8-7.4) at 100". Where an end's interval holds 1
// the order there is not known, and the line says so.
func aheadText(p Pair, g Grid) string {
	a, b, ctx := pairNames(p.A, p.B, g)
	first, last := *p.First, *p.Last
	if math.Log(first.Ratio)+math.Log(last.Ratio) < 0 { // A leads: say A over B
		a, b = b, a
		first, last = invert(first), invert(last)
	}
	s := fmt.Sprintf("no crossing: %s ahead of %s%s from %.0f to %.0f pipes, by %s at %s and %s at %.0f",
		b, a, ctx, first.X, last.X, leadText(first), pipesText(first.X), leadText(last), last.X)
	var level []string
	for _, e := range []stats.RatioAt{first, last} {
		if e.N >= 2 && e.Holds1() {
			level = append(level, pipesText(e.X))
		}
	}
	if len(level) > 0 {
		s += fmt.Sprintf(": at %s the ratio's interval holds 1", strings.Join(level, " and "))
	}
	return s
}

// invert is a ratio of B over A turned into A over B.
func invert(r stats.RatioAt) stats.RatioAt {
	r.Ratio, r.Lo, r.Hi = 1/r.Ratio, 1/r.Hi, 1/r.Lo
	return r
}

// leadText is "1.08x (1.03-1.13)", or "1.08x" without an interval.
func leadText(r stats.RatioAt) string {
	if r.N < 2 {
		return fmt.Sprintf("%.2fx", r.Ratio)
	}
	return fmt.Sprintf("%.2fx (%.2f-%.2f)", r.Ratio, r.Lo, r.Hi)
}

// pairNames names two curves as a line says them, and the setting they
// share when it is worth saying: two backends at "-l 4" when several -l
// were swept, one backend's two -l values as "epoll -l 10" and "epoll -l
// 1"; ", -writers 2" and ", -readers 2" when those were swept.
func pairNames(a, b Curve, g Grid) (string, string, string) {
	var ctx []string
	na, nb := a.Backend, b.Backend
	if a.InFlight != b.InFlight {
		na, nb = fmt.Sprintf("%s -l %d", na, a.InFlight), fmt.Sprintf("%s -l %d", nb, b.InFlight)
	} else if len(g.InFlight) > 1 {
		ctx = append(ctx, fmt.Sprintf("-l %d", a.InFlight))
	}
	if len(g.Writers) > 1 {
		ctx = append(ctx, fmt.Sprintf("-writers %d", a.Writers))
	}
	if len(g.Readers) > 1 {
		ctx = append(ctx, fmt.Sprintf("-readers %d", a.Readers))
	}
	if len(ctx) == 0 {
		return na, nb, ""
	}
	return na, nb, " at " + strings.Join(ctx, " ")
}

// refineText says what -refine added, and why it stopped short where it
// did.
func refineText(rf *Refine, r *Result) string {
	s := fmt.Sprintf("-refine %g added %d points", rf.Factor, len(rf.Added))
	if r.Rounds > 1 {
		s += fmt.Sprintf(" (each run %d times)", r.Rounds)
	}
	adjacent, unresolved := false, false
	for _, p := range r.Crossings.Pairs {
		for _, c := range p.Crossings {
			wide := c.To > c.From*rf.Factor
			adjacent = adjacent || wide && c.Adjacent
			unresolved = unresolved || wide && !c.Resolved && r.Rounds > 1
		}
	}
	if rf.Spent {
		s += fmt.Sprintf("; its budget of %d ran out before every bracket was within %g", rf.Budget, rf.Factor)
	}
	if adjacent {
		s += "; a bracket between adjacent pipe counts has no point to add"
	}
	if unresolved {
		s += "; a crossing not resolved is left as it is (more -count tells more than more points)"
	}
	return s
}

// pipesText is "1 pipe" or "10 pipes".
func pipesText(n float64) string {
	if n == 1 {
		return "1 pipe"
	}
	return fmt.Sprintf("%.0f pipes", n)
}

// about prints a pipe count found by interpolation: one decimal below 10,
// a whole number below 100, two significant digits above.
func about(v float64) string {
	switch {
	case v < 10:
		return fmt.Sprintf("%.1f", v)
	case v < 100:
		return fmt.Sprintf("%.0f", v)
	}
	p := math.Pow10(int(math.Floor(math.Log10(v))) - 1)
	return fmt.Sprintf("%.0f", math.Round(v/p)*p)
}
