package sweep

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/pipebench/pipebench/stats"
)

// Curve is one curve of a sweep: a backend at one setting of tokens in
// flight, writers and readers, measured against pipes.
type Curve struct {
	Backend  string `json:"backend"`
	InFlight int    `json:"in_flight"`
	Writers  int    `json:"writers,omitempty"`
	Readers  int    `json:"readers,omitempty"`
}

func (c Curve) String() string {
	s := fmt.Sprintf("%s -l %d", c.Backend, c.InFlight)
	if c.Writers > 0 {
		s += fmt.Sprintf(" -writers %d", c.Writers)
	}
	if c.Readers > 0 {
		s += fmt.Sprintf(" -readers %d", c.Readers)
	}
	return s
}

func curveOf(k Key) Curve { return Curve{k.Backend, k.InFlight, k.Writers, k.Readers} }

// at is the curve's point at pipes.
func (c Curve) at(pipes int) Key {
	return Key{Backend: c.Backend, Pipes: pipes, InFlight: c.InFlight, Writers: c.Writers, Readers: c.Readers}
}

// Crossings is where a sweep's curves cross, pair by pair.
type Crossings struct {
	// Level is the level of the crossings' intervals (stats.CrossingLevel).
	Level float64 `json:"level"`
	// Pairs are every pair of curves compared, whether they cross or not:
	// the backends at each setting of tokens in flight, writers and
	// readers, and each backend's tokens-in-flight values at each setting
	// of writers and readers.
	Pairs []Pair `json:"pairs"`
}

// Pair is two curves compared on the pipe counts where both were
// measured, and where they cross.
type Pair struct {
	A Curve `json:"a"`
	B Curve `json:"b"`
	// Pipes are the pipe counts where both curves were measured.
	Pipes     []int      `json:"pipes"`
	Crossings []Crossing `json:"crossings"`
	// First and Last are B over A at the fewest and the most of Pipes
	// (stats.PairPoint.Ratio): which curve leads at each end, by how
	// much, and whether that is known. Records written before they were
	// kept have neither.
	First *stats.RatioAt `json:"first,omitempty"`
	Last  *stats.RatioAt `json:"last,omitempty"`
}

// Crossing is one place where one curve of a pair overtakes the other.
type Crossing struct {
	// Over is the curve that overtakes as the pipes grow, Under the one it
	// overtakes.
	Over  Curve `json:"over"`
	Under Curve `json:"under"`
	stats.Crossing
	// Adjacent is set, with -refine, when no pipe count a point could take
	// lies strictly between the bracket's ends: it cannot be narrowed.
	Adjacent bool `json:"adjacent,omitempty"`
}

// Refine is what -refine did.
type Refine struct {
	// Factor is the factor the bracket's ends were to be brought within;
	// Budget the most points it could add.
	Factor float64 `json:"factor"`
	Budget int     `json:"budget"`
	// Added are the points it added, in the order they were added; each
	// ran once a round like the grid's.
	Added []Key `json:"added"`
	// Spent is set when the budget ran out before every bracket was
	// within Factor.
	Spent bool `json:"budget_spent,omitempty"`
}

// FindCrossings finds where the curves of r cross (stats.Crossings), for
// every pair of curves that share at least two pipe counts. The
// repetitions of a point are paired by round: each round measured both
// curves' points once. An open-loop sweep has none: its curves run
// against the load, and its evts/sec is the load.
func FindCrossings(r *Result) *Crossings {
	if r.Grid.Open() {
		return nil
	}
	type at struct {
		c     Curve
		pipes int
	}
	byRound := map[at]map[int]float64{}
	for _, p := range r.Points {
		a := at{curveOf(p.Key), p.Pipes}
		if byRound[a] == nil {
			byRound[a] = map[int]float64{}
		}
		byRound[a][p.Round] = p.EventsPerSec
	}
	pipesOf := map[Curve][]int{}
	for a := range byRound {
		pipesOf[a.c] = append(pipesOf[a.c], a.pipes)
	}
	cs := &Crossings{Level: stats.CrossingLevel, Pairs: []Pair{}}
	for _, pr := range r.Grid.pairs() {
		p := Pair{A: pr[0], B: pr[1], Crossings: []Crossing{}}
		for _, n := range pipesOf[p.A] {
			if slices.Contains(pipesOf[p.B], n) {
				p.Pipes = append(p.Pipes, n)
			}
		}
		if len(p.Pipes) < 2 {
			continue
		}
		slices.Sort(p.Pipes)
		var pts []stats.PairPoint
		for _, n := range p.Pipes {
			a, b := byRound[at{p.A, n}], byRound[at{p.B, n}]
			pt := stats.PairPoint{X: float64(n)}
			for _, round := range slices.Sorted(maps.Keys(a)) {
				if vb, ok := b[round]; ok {
					pt.A, pt.B = append(pt.A, a[round]), append(pt.B, vb)
				}
			}
			pts = append(pts, pt)
		}
		if first, ok := pts[0].Ratio(); ok {
			p.First = &first
		}
		if last, ok := pts[len(pts)-1].Ratio(); ok {
			p.Last = &last
		}
		for _, c := range stats.Crossings(pts) {
			x := Crossing{Over: p.A, Under: p.B, Crossing: c}
			if c.BOvertakesA {
				x.Over, x.Under = p.B, p.A
			}
			if r.Refine != nil {
				_, ok := r.Grid.between(x.Over, int(c.From), int(c.To))
				x.Adjacent = !ok
			}
			p.Crossings = append(p.Crossings, x)
		}
		cs.Pairs = append(cs.Pairs, p)
	}
	return cs
}

// pairs are the pairs of curves the grid can compare: every two backends
// at each setting of tokens in flight, writers and readers, in the order
// the backends were given; then, when several tokens-in-flight values were
// swept, every two of them for each backend at each setting of writers
// and readers, the smaller first.
func (g Grid) pairs() [][2]Curve {
	var ps [][2]Curve
	inflight, writers, readers := sorted(g.InFlight), orZero(sorted(g.Writers)), orZero(sorted(g.Readers))
	for _, l := range inflight {
		for _, w := range writers {
			for _, r := range readers {
				for i, a := range g.Backends {
					for _, b := range g.Backends[i+1:] {
						ps = append(ps, [2]Curve{{a, l, w, r}, {b, l, w, r}})
					}
				}
			}
		}
	}
	for _, be := range g.Backends {
		for _, w := range writers {
			for _, r := range readers {
				for i, a := range inflight {
					for _, b := range inflight[i+1:] {
						ps = append(ps, [2]Curve{{be, a, w, r}, {be, b, w, r}})
					}
				}
			}
		}
	}
	return ps
}

// unit is the step of a curve's pipe counts: with PipesPer writer (or
// reader), a point's pipes are a multiple of its writers (readers).
func (g Grid) unit(c Curve) int {
	switch g.PipesPer {
	case "writer":
		return max(c.Writers, 1)
	case "reader":
		return max(c.Readers, 1)
	}
	return 1
}

// between is the pipe count, a multiple of c's unit, nearest the
// geometric middle of from and to and strictly between them; false when
// there is none.
func (g Grid) between(c Curve, from, to int) (int, bool) {
	u := g.unit(c)
	lo, hi := from/u+1, (to-1)/u // the multiples of u strictly inside, over u
	if lo > hi {
		return 0, false
	}
	mid := int(math.Round(math.Sqrt(float64(from)*float64(to)) / float64(u)))
	return min(max(mid, lo), hi) * u, true
}

// Keys lists every point the sweep set out to measure: the grid's
// (Grid.Keys), and those -refine added, each among the grid's in the
// grid's order (pipes, tokens in flight, writers, readers, backends as
// given).
func (r *Result) Keys() []Key {
	keys := r.Grid.Keys()
	if r.Refine == nil || len(r.Refine.Added) == 0 {
		return keys
	}
	keys = append(keys, r.Refine.Added...)
	per := func(k Key) int { return k.Pipes / r.Grid.unit(curveOf(k)) }
	slices.SortStableFunc(keys, func(a, b Key) int {
		return cmp.Or(cmp.Compare(per(a), per(b)), cmp.Compare(a.InFlight, b.InFlight),
			cmp.Compare(a.Writers, b.Writers), cmp.Compare(a.Readers, b.Readers),
			cmp.Compare(slices.Index(r.Grid.Backends, a.Backend), slices.Index(r.Grid.Backends, b.Backend)))
	})
	return keys
}
