package compare

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/stats"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// CrossVerdict is what became of a crossing from the first side to a
// later one.
type CrossVerdict string

const (
	// CrossMoved: resolved on both sides, and the intervals are apart.
	CrossMoved CrossVerdict = "moved"
	// CrossSame: resolved on both sides, and the intervals overlap.
	CrossSame CrossVerdict = "no move called"
	// CrossAppeared and CrossVanished: resolved on one side only, and the
	// other side's order of the two curves at an end of its bracket says
	// that they do not cross there.
	CrossAppeared CrossVerdict = "appeared"
	CrossVanished CrossVerdict = "vanished"
	// CrossUnknown: a crossing not resolved, or the other side's order of
	// the curves at its bracket's ends not known.
	CrossUnknown CrossVerdict = "cannot tell"
)

// Crossings are a later side's crossings against the first's, pair of
// curves by pair: every pair that every record of the two sides has,
// its crossings found again (stats.Crossings) on the pipe counts at which
// every one of those records measured both curves, so that different
// grids, or points added by -refine, compare like with like.
type Crossings struct {
	// Base and Side label the first side and the later one.
	Base string `json:"base"`
	Side string `json:"side"`
	// Level is the level of the crossings' intervals.
	Level float64 `json:"level"`
	// OverSittings is set when every side holds two records or more: a
	// record's ratio at a pipe count is then one repetition (the geometric
	// means of its rounds), and the intervals are over the sittings. Else
	// each round of each record is one.
	OverSittings bool        `json:"over_sittings"`
	Pairs        []CrossPair `json:"pairs"`
	// LeftOut are each record's pipe counts that no pair was compared at.
	LeftOut []PipesLeftOut `json:"pipes_left_out,omitempty"`
}

// CrossPair is two curves compared on both sides.
type CrossPair struct {
	A sweep.Curve `json:"a"`
	B sweep.Curve `json:"b"`
	// Pipes are the pipe counts every record of both sides measured both
	// curves at: the crossings of each side are found on these.
	Pipes     []int         `json:"pipes"`
	Crossings []CrossChange `json:"crossings"`
}

// CrossChange is one crossing, on either side or on both.
type CrossChange struct {
	// Over is the curve that overtakes as the pipes grow, Under the one it
	// overtakes.
	Over  sweep.Curve `json:"over"`
	Under sweep.Curve `json:"under"`
	// Base and Side are the crossing on the first side and on the later
	// one; nil on a side where the curves do not cross so.
	Base    *stats.Crossing `json:"base"`
	Side    *stats.Crossing `json:"side"`
	Verdict CrossVerdict    `json:"verdict"`
	// Why says why a verdict is CrossUnknown.
	Why string `json:"why,omitempty"`
}

// PipesLeftOut are a record's pipe counts that no pair was compared at:
// another record of the two sides did not measure both curves there.
type PipesLeftOut struct {
	Record string `json:"record"`
	Pipes  []int  `json:"pipes"`
}

// sweepOf is a sweep record's grid, what -refine added and its points,
// as much of them as its crossings and its order need.
func sweepOf(grid sweep.Grid, refine *sweep.Refine, points []pointJSON) *sweep.Result {
	r := &sweep.Result{Grid: grid, Refine: refine}
	for _, p := range points {
		k := sweep.Key{Backend: p.Backend, Pipes: p.Pipes, InFlight: p.InFlight, Writers: p.Writers, Readers: p.Readers}
		r.Points = append(r.Points, sweep.Point{Key: k, Round: p.Round, EventsPerSec: p.EventsPerSec})
	}
	return r
}

// crossings compares the crossings of sweep records, each later side's
// against the first's.
func (c *Comparison) crossings(sides [][]*Loaded) {
	for _, sd := range sides {
		for _, l := range sd {
			// Curves cross in closed-loop sweeps; an open-loop sweep's
			// evts/sec are its offered loads.
			if l.Sweep == nil || l.Sweep.Grid.Open() {
				return
			}
		}
	}
	for j := 1; j < len(sides); j++ {
		var labels []string
		for _, sd := range []Side{c.Sides[0], c.Sides[j]} {
			for _, i := range sd.Records {
				labels = append(labels, c.Inputs[i].Label)
			}
		}
		cs := &Crossings{Base: c.Sides[0].Label, Side: c.Sides[j].Label, Level: stats.CrossingLevel, OverSittings: c.Sittings, Pairs: []CrossPair{}}
		cs.compare(sides[0], sides[j], labels)
		c.Crossings = append(c.Crossings, *cs)
	}
}

// at is one curve at one pipe count.
type at struct {
	c     sweep.Curve
	pipes int
}

// rounds are a record's evts/sec by curve and pipe count, then by round.
type rounds map[at]map[int]float64

func roundsOf(r *sweep.Result) rounds {
	out := rounds{}
	for _, p := range r.Points {
		k := at{sweep.Curve{Backend: p.Backend, InFlight: p.InFlight, Writers: p.Writers, Readers: p.Readers}, p.Pipes}
		if out[k] == nil {
			out[k] = map[int]float64{}
		}
		out[k][p.Round] = p.EventsPerSec
	}
	return out
}

// pairKey names a pair of curves whichever comes first.
func pairKey(a, b sweep.Curve) string {
	s := []string{a.String(), b.String()}
	sort.Strings(s)
	return strings.Join(s, " | ")
}

// compare fills cs from the records of the base side and of the later
// one, labelled in that order.
func (cs *Crossings) compare(base, side []*Loaded, labels []string) {
	recs := slices.Concat(base, side)
	var found [][]sweep.Pair // each record's pairs
	var rs []rounds
	for _, l := range recs {
		found = append(found, sweep.FindCrossings(l.Sweep).Pairs)
		rs = append(rs, roundsOf(l.Sweep))
	}
	used := map[int]bool{}
	for _, p := range found[0] {
		shared := slices.Clone(p.Pipes)
		for _, ps := range found[1:] {
			i := slices.IndexFunc(ps, func(q sweep.Pair) bool { return pairKey(q.A, q.B) == pairKey(p.A, p.B) })
			if i < 0 {
				shared = nil
				break
			}
			shared = slices.DeleteFunc(shared, func(n int) bool { return !slices.Contains(ps[i].Pipes, n) })
		}
		if len(shared) < 2 {
			continue
		}
		for _, n := range shared {
			used[n] = true
		}
		pa := pairPoints(rs[:len(base)], p.A, p.B, shared, cs.OverSittings)
		pb := pairPoints(rs[len(base):], p.A, p.B, shared, cs.OverSittings)
		cp := CrossPair{A: p.A, B: p.B, Pipes: shared, Crossings: []CrossChange{}}
		cp.changes(pa, pb, cs.Base, cs.Side)
		cs.Pairs = append(cs.Pairs, cp)
	}
	for i, ps := range found {
		var left []int
		for _, p := range ps {
			for _, n := range p.Pipes {
				if !used[n] && !slices.Contains(left, n) {
					left = append(left, n)
				}
			}
		}
		if len(left) > 0 && len(cs.Pairs) > 0 {
			slices.Sort(left)
			cs.LeftOut = append(cs.LeftOut, PipesLeftOut{Record: labels[i], Pipes: left})
		}
	}
}

// pairPoints are curves a and b of one side's records at each of pipes:
// a pair of evts/sec for every round in which a record measured both
// (each record's rounds apart), or, over sittings, one pair a record: the
// geometric means of those rounds' (Kalibera and Jones's reduction of a
// sitting to the mean of its runs' logarithms, as the tables take it).
func pairPoints(rs []rounds, a, b sweep.Curve, pipes []int, over bool) []stats.PairPoint {
	var pts []stats.PairPoint
	for _, n := range pipes {
		pt := stats.PairPoint{X: float64(n)}
		for _, r := range rs {
			va, vb := r[at{a, n}], r[at{b, n}]
			var xa, xb []float64
			for _, round := range slices.Sorted(maps.Keys(va)) {
				if y, ok := vb[round]; ok {
					xa, xb = append(xa, va[round]), append(xb, y)
				}
			}
			if over && len(xa) > 0 {
				xa, xb = []float64{cmpstat.Geomean(xa)}, []float64{cmpstat.Geomean(xb)}
			}
			pt.A, pt.B = append(pt.A, xa...), append(pt.B, xb...)
		}
		pts = append(pts, pt)
	}
	return pts
}

// changes finds the pair's crossings on each side (pa the base's points,
// pb the later side's), matches them, and judges each.
func (cp *CrossPair) changes(pa, pb []stats.PairPoint, base, side string) {
	ca, cb := stats.Crossings(pa), stats.Crossings(pb)
	for _, up := range []bool{false, true} { // A overtakes B, then B overtakes A
		ia, ib := ofDirection(ca, up), ofDirection(cb, up)
		var xa, xb []float64
		for _, i := range ia {
			xa = append(xa, ca[i].At)
		}
		for _, i := range ib {
			xb = append(xb, cb[i].At)
		}
		ma, mb := map[int]bool{}, map[int]bool{}
		for _, m := range match(xa, xb) {
			ma[m[0]], mb[m[1]] = true, true
			cp.add(&ca[ia[m[0]]], &cb[ib[m[1]]], pa, pb, base, side)
		}
		for k, i := range ia {
			if !ma[k] {
				cp.add(&ca[i], nil, pa, pb, base, side)
			}
		}
		for k, i := range ib {
			if !mb[k] {
				cp.add(nil, &cb[i], pa, pb, base, side)
			}
		}
	}
	where := func(x CrossChange) float64 {
		if x.Base != nil {
			return x.Base.At
		}
		return x.Side.At
	}
	sort.SliceStable(cp.Crossings, func(i, j int) bool { return where(cp.Crossings[i]) < where(cp.Crossings[j]) })
}

// ofDirection are the indices of the crossings of cs in which B
// overtakes A (up) or A overtakes B.
func ofDirection(cs []stats.Crossing, up bool) []int {
	var out []int
	for i, c := range cs {
		if c.BOvertakesA == up {
			out = append(out, i)
		}
	}
	return out
}

// match pairs the crossings at a with those at b (each in increasing
// pipes): the most pairs that keep both orders, and of those the pairs
// nearest on log pipes. It returns the index in a and in b of each pair.
func match(a, b []float64) [][2]int {
	type cell struct {
		pairs int
		dist  float64
	}
	better := func(x, y cell) bool { return x.pairs > y.pairs || x.pairs == y.pairs && x.dist < y.dist }
	// best[i][j] is the best matching of a[i:] with b[j:].
	best := make([][]cell, len(a)+1)
	for i := range best {
		best[i] = make([]cell, len(b)+1)
	}
	both := func(i, j int) cell {
		d := best[i+1][j+1]
		return cell{d.pairs + 1, d.dist + math.Abs(math.Log(a[i]/b[j]))}
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			c := best[i+1][j]
			if better(best[i][j+1], c) {
				c = best[i][j+1]
			}
			if d := both(i, j); !better(c, d) {
				c = d
			}
			best[i][j] = c
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case both(i, j) == best[i][j]:
			out = append(out, [2]int{i, j})
			i, j = i+1, j+1
		case best[i+1][j] == best[i][j]:
			i++
		default:
			j++
		}
	}
	return out
}

// add judges one crossing, on the base side (ca), the later side (cb) or
// both, and adds it.
func (cp *CrossPair) add(ca, cb *stats.Crossing, pa, pb []stats.PairPoint, base, side string) {
	x := CrossChange{Over: cp.A, Under: cp.B, Base: ca, Side: cb}
	one := ca
	if one == nil {
		one = cb
	}
	if one.BOvertakesA {
		x.Over, x.Under = cp.B, cp.A
	}
	switch {
	case ca != nil && cb != nil:
		x.Verdict, x.Why = judgeBoth(ca, cb, base, side)
	case cb != nil:
		x.Verdict, x.Why = judgeOne(cb, pa, side, base, CrossAppeared)
	default:
		x.Verdict, x.Why = judgeOne(ca, pb, base, side, CrossVanished)
	}
	cp.Crossings = append(cp.Crossings, x)
}

// judgeBoth judges a crossing both sides have: moved when both are
// resolved and their intervals are apart. Intervals apart show a change
// at a level well beyond their own (two 95% intervals of equal width
// apart: p < 0.006), and intervals that overlap do not show sameness
// (Schenker and Gentleman, "On judging the significance of differences by
// examining the overlap between confidence intervals", The American
// Statistician 55, 2001, 182-186): the rule calls a move only when it is
// plain, and says no more than "no move called" otherwise.
func judgeBoth(ca, cb *stats.Crossing, base, side string) (CrossVerdict, string) {
	if !ca.Resolved || !cb.Resolved {
		return CrossUnknown, unresolved(map[string]*stats.Crossing{base: ca, side: cb})
	}
	la, ha := span(ca)
	lb, hb := span(cb)
	if ha < lb || hb < la {
		return CrossMoved, ""
	}
	return CrossSame, ""
}

// unresolved says which of the sides' crossings (by side label) are not
// resolved, and of those measured once a point, that they have no
// interval: "not resolved in A and B", "one run a point in A: no
// interval".
func unresolved(cs map[string]*stats.Crossing) string {
	var not, once []string
	for _, label := range slices.Sorted(maps.Keys(cs)) {
		switch c := cs[label]; {
		case c.Resolved:
		case c.Before.N < 2 || c.After.N < 2:
			once = append(once, label)
		default:
			not = append(not, label)
		}
	}
	var why []string
	if len(once) > 0 {
		why = append(why, "one run a point in "+strings.Join(once, " and ")+": no interval")
	}
	if len(not) > 0 {
		why = append(why, "not resolved in "+strings.Join(not, " and "))
	}
	return strings.Join(why, "; ")
}

// span is a resolved crossing's interval: Lo to Hi, or, for a tie (no
// interval), its bracket.
func span(c *stats.Crossing) (float64, float64) {
	if c.Interval {
		return c.Lo, c.Hi
	}
	return c.From, c.To
}

// judgeOne judges a crossing that only one side (labelled own) has, in
// which pts are the other side's points: v (appeared or vanished) when it
// is resolved and the other side's order of the curves at an end of its
// bracket is known and against it: the one that overtakes already ahead
// at From, or still behind at To.
func judgeOne(c *stats.Crossing, pts []stats.PairPoint, own, other string, v CrossVerdict) (CrossVerdict, string) {
	if !c.Resolved {
		return CrossUnknown, unresolved(map[string]*stats.Crossing{own: c})
	}
	// ratio is the other side's ratio of the curve that overtakes to the
	// other at x.
	ratio := func(x float64) (stats.RatioAt, bool) {
		i := slices.IndexFunc(pts, func(p stats.PairPoint) bool { return p.X == x })
		if i < 0 {
			return stats.RatioAt{}, false
		}
		r, ok := pts[i].Ratio()
		if !c.BOvertakesA {
			r.Ratio, r.Lo, r.Hi = 1/r.Ratio, 1/r.Hi, 1/r.Lo
		}
		return r, ok
	}
	from, okf := ratio(c.From)
	to, okt := ratio(c.To)
	if okf && from.N >= 2 && from.Lo > 1 || okt && to.N >= 2 && to.Hi < 1 {
		return v, ""
	}
	return CrossUnknown, fmt.Sprintf("%s's order at %.0f and %.0f pipes not resolved", other, c.From, c.To)
}
