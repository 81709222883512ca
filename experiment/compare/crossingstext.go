package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/stats"
)

// crossings writes, after the tables of sweep records, each later side's
// crossings against the first's: a line per crossing (who overtakes whom,
// where on each side, and the verdict), the pairs that cross on neither
// side, the pipe counts left out, and how to read the verdicts. Nothing
// for a later side when no pair crosses on either side.
func (t *tables) crossings() {
	written := false
	for i := range t.c.Crossings {
		cs := &t.c.Crossings[i]
		if !slices.ContainsFunc(cs.Pairs, func(p CrossPair) bool { return len(p.Crossings) > 0 }) {
			continue
		}
		t.ew.Printf("\n")
		written = true
		how := "95% intervals from paired rounds"
		if cs.OverSittings {
			how = "95% intervals over the sittings, each record's geometric means one repetition"
		}
		t.h("crossings, %s against %s, at the pipe counts where every record measured both curves (on log pipes; %s):",
			cs.Side, cs.Base, how)
		var none []string
		lo, hi := 0, 0
		for _, p := range cs.Pairs {
			if len(p.Crossings) == 0 {
				a, b, ctx := cs.names(p.A, p.B)
				none = append(none, a+" and "+b+ctx)
				lo, hi = minPos(lo, p.Pipes[0]), max(hi, p.Pipes[len(p.Pipes)-1])
			}
			for _, x := range p.Crossings {
				t.item(cs.line(x))
			}
		}
		if len(none) > 0 {
			t.item(fmt.Sprintf("no crossing on either side from %d to %d pipes: %s", lo, hi, strings.Join(none, "; ")))
		}
		for _, l := range cs.LeftOut {
			var ns []string
			for _, n := range l.Pipes {
				ns = append(ns, fmt.Sprint(n))
			}
			t.item(fmt.Sprintf("left out, not measured by every record: %s's %s pipes", l.Record, strings.Join(ns, ", ")))
		}
	}
	if written {
		t.h("moved: resolved on both sides, the intervals apart; no move called: they overlap; appeared or " +
			"vanished: resolved on one side only, the other's order of the curves at an end of its bracket against it; " +
			"cannot tell: not resolved, or that order not known")
	}
}

// item writes one line of a block, indented (text) or as a list item
// (markdown).
func (t *tables) item(s string) {
	if t.markdown {
		t.h("- %s", s)
		return
	}
	t.h("  %s", s)
}

// minPos is the smaller of a and b, a when it is not yet set (0).
func minPos(a, b int) int {
	if a == 0 {
		return b
	}
	return min(a, b)
}

// line is one crossing: "epoll over poll: 5.2 (4.4-6.1) -> 8.9
// (7.7-10.2) pipes: moved", "... 5.2 (4.4-6.1) pipes -> none: vanished in
// B".
func (cs *Crossings) line(x CrossChange) string {
	over, under, ctx := cs.names(x.Over, x.Under)
	v := string(x.Verdict)
	switch x.Verdict {
	case CrossAppeared, CrossVanished:
		v += " in " + cs.Side
	case CrossUnknown:
		v += " (" + x.Why + ")"
	}
	from, to := whereText(x.Base), whereText(x.Side)+" pipes"
	if x.Side == nil {
		from, to = from+" pipes", "none"
	}
	return fmt.Sprintf("%s over %s%s: %s -> %s: %s", over, under, ctx, from, to, v)
}

// whereText is where a crossing lies: about 5.2 pipes, with its interval
// (its bracket, for a tie) when it is resolved; "none" on a side without
// it.
func whereText(c *stats.Crossing) string {
	switch {
	case c == nil:
		return "none"
	case c.Resolved:
		lo, hi := span(c)
		return fmt.Sprintf("%s (%s-%s)", pipesAbout(c.At), pipesAbout(lo), pipesAbout(hi))
	}
	return pipesAbout(c.At)
}

// pipesAbout prints a pipe count found by interpolation as the sweep's
// text does: one decimal below 10, two significant digits from there.
func pipesAbout(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", stats.RoundSig(v, 2))
}

// names names two curves as a line says them: by backend when that is
// what they differ in, else each with its tokens in flight; and, as " at
// -l 4 -writers 2", the settings they share where the block's pairs do
// not all share them.
func (cs *Crossings) names(a, b sweep.Curve) (string, string, string) {
	vary := func(of func(sweep.Curve) int) bool {
		for _, p := range cs.Pairs {
			if of(p.A) != of(cs.Pairs[0].A) || of(p.B) != of(cs.Pairs[0].A) {
				return true
			}
		}
		return false
	}
	na, nb := a.Backend, b.Backend
	var ctx []string
	if a.InFlight != b.InFlight {
		na, nb = fmt.Sprintf("%s -l %d", na, a.InFlight), fmt.Sprintf("%s -l %d", nb, b.InFlight)
	} else if vary(func(c sweep.Curve) int { return c.InFlight }) {
		ctx = append(ctx, fmt.Sprintf("-l %d", a.InFlight))
	}
	if vary(func(c sweep.Curve) int { return c.Writers }) {
		ctx = append(ctx, fmt.Sprintf("-writers %d", a.Writers))
	}
	if vary(func(c sweep.Curve) int { return c.Readers }) {
		ctx = append(ctx, fmt.Sprintf("-readers %d", a.Readers))
	}
	if len(ctx) == 0 {
		return na, nb, ""
	}
	return na, nb, " at " + strings.Join(ctx, " ")
}
