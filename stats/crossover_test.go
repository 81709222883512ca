package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// pairCurves builds a pair of curves on xs: A is 1000 everywhere, B is A
// times exp(logRatio(x)), and each of the reps repetitions multiplies B by
// exp(noise[i]) (no noise, one repetition, when noise is empty).
func pairCurves(xs []float64, logRatio func(x float64) float64, noise ...float64) []PairPoint {
	if len(noise) == 0 {
		noise = []float64{0}
	}
	var pts []PairPoint
	for _, x := range xs {
		p := PairPoint{X: x}
		for _, e := range noise {
			p.A = append(p.A, 1000)
			p.B = append(p.B, 1000*math.Exp(logRatio(x)+e))
		}
		pts = append(pts, p)
	}
	return pts
}

// piecewise is a log ratio that is linear in log x between the knots
// (x, value), so that interpolation on the log scale finds its zeros
// exactly.
func piecewise(knots ...[2]float64) func(float64) float64 {
	return func(x float64) float64 {
		lx := math.Log(x)
		for i := 1; i < len(knots); i++ {
			l0, l1 := math.Log(knots[i-1][0]), math.Log(knots[i][0])
			if lx <= l1 || i == len(knots)-1 {
				f := (lx - l0) / (l1 - l0)
				return knots[i-1][1] + f*(knots[i][1]-knots[i-1][1])
			}
		}
		return knots[0][1]
	}
}

// reps is noise of mean 0 and sample standard deviation about 0.03, five
// repetitions.
var reps = []float64{-0.04, -0.02, 0, 0.02, 0.04}

// close reports whether a and b agree to 9 significant digits.
func close(a, b float64) bool { return near(a, b, 1e-9*math.Max(math.Abs(a), math.Abs(b))) }

func TestCrossingsKnown(t *testing.T) {
	xs := []float64{1, 10, 100, 1000, 10000}
	// B = A * 0.2 * x^0.3: B overtakes A where 0.2 x^0.3 = 1, at about
	// 215.
	power := func(x float64) float64 { return math.Log(0.2) + 0.3*math.Log(x) }
	one := math.Pow(5, 1/0.3)
	// Up from -1 at 1 to +1 at 10, level to 100, down to -1 at 1000:
	// crossings at sqrt(10) and 100 * sqrt(10).
	hump := piecewise([2]float64{1, -1}, [2]float64{10, 1}, [2]float64{100, 1}, [2]float64{1000, -1}, [2]float64{10000, -1})
	type want struct {
		from, to, at float64
		bOver        bool
	}
	cases := []struct {
		name  string
		pts   []PairPoint
		wants []want
	}{
		{"one crossing, one run a point", pairCurves(xs, power), []want{{100, 1000, one, true}}},
		{"one crossing, five runs a point", pairCurves(xs, power, reps...), []want{{100, 1000, one, true}}},
		{"none", pairCurves(xs, func(float64) float64 { return 0.3 }, reps...), nil},
		{"A overtakes B", pairCurves(xs, func(x float64) float64 { return -power(x) }, reps...), []want{{100, 1000, one, false}}},
		{"two crossings", pairCurves(xs, hump, reps...), []want{{1, 10, math.Sqrt(10), true}, {100, 1000, 100 * math.Sqrt(10), false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Crossings(c.pts)
			if len(got) != len(c.wants) {
				t.Fatalf("%d crossings %+v, want %d", len(got), got, len(c.wants))
			}
			for i, w := range c.wants {
				g := got[i]
				if g.From != w.from || g.To != w.to || !close(g.At, w.at) || g.BOvertakesA != w.bOver {
					t.Errorf("crossing %d: %+v, want from %v to %v at %v, B overtakes A %v", i, g, w.from, w.to, w.at, w.bOver)
				}
				if g.Before.Ratio >= 1 || g.After.Ratio <= 1 {
					t.Errorf("crossing %d: the overtaking curve's ratio goes %v to %v: want below 1, then above", i, g.Before.Ratio, g.After.Ratio)
				}
				reps := len(c.pts[0].A)
				if g.Before.N != reps || g.After.N != reps {
					t.Errorf("crossing %d: ends of %d and %d pairs, want %d", i, g.Before.N, g.After.N, reps)
				}
				if reps == 1 {
					if g.Interval || g.Resolved || g.Lo != 0 || g.Hi != 0 {
						t.Errorf("crossing %d: one run a point has no interval to resolve by: %+v", i, g)
					}
					continue
				}
				if !g.Resolved || !g.Interval || !(g.From < g.Lo && g.Lo < w.at && w.at < g.Hi && g.Hi < g.To) {
					t.Errorf("crossing %d: want resolved, the interval inside the bracket around %v: %+v", i, w.at, g)
				}
			}
		})
	}
}

// TestCrossingsTie: a tie inside the noise leaves the crossing next to
// it not resolved (the order of the curves there is not known) and gives
// it no interval; an exact tie between two points is read across; a
// touch is no crossing.
func TestCrossingsTie(t *testing.T) {
	xs := []float64{1, 10, 100}
	// At 10 the log ratio is +0.005: the means say B leads, the noise
	// (0.03) says either might.
	noisy := Crossings(pairCurves(xs, piecewise([2]float64{1, -0.5}, [2]float64{10, 0.005}, [2]float64{100, 0.5}), reps...))
	if len(noisy) != 1 {
		t.Fatalf("crossings %+v: want one, between 1 and 10", noisy)
	}
	if c := noisy[0]; c.From != 1 || c.To != 10 || c.Resolved || c.Interval || !c.BOvertakesA || !c.After.Holds1() || c.Before.Holds1() {
		t.Errorf("crossing %+v: want B overtaking A between 1 and 10, not resolved (the ratio at 10 holds 1), without an interval", c)
	}
	// Two near ties whose means disagree: two crossings, both not
	// resolved.
	flips := Crossings(pairCurves([]float64{1, 10, 100, 1000}, func(x float64) float64 {
		return map[float64]float64{1: -0.5, 10: 0.005, 100: -0.005, 1000: 0.5}[x]
	}, reps...))
	if len(flips) != 3 {
		t.Fatalf("crossings %+v: want three, each across a near tie", flips)
	}
	for i, c := range flips {
		if c.Resolved || c.Interval {
			t.Errorf("crossing %d resolved inside the noise: %+v", i, c)
		}
	}

	exact := Crossings(pairCurves([]float64{1, 10, 30, 100}, func(x float64) float64 {
		return map[float64]float64{1: -0.5, 10: 0, 30: 0, 100: 0.5}[x]
	}))
	if len(exact) != 1 || !exact[0].Tie || exact[0].From != 1 || exact[0].To != 100 || !close(exact[0].At, math.Sqrt(300)) {
		t.Errorf("crossings %+v: want one, a tie from 10 to 30 read across, at their geometric middle", exact)
	}
	touch := Crossings(pairCurves(xs, func(x float64) float64 { return map[float64]float64{1: -0.5, 10: 0, 100: -0.5}[x] }))
	if len(touch) != 0 {
		t.Errorf("a touch is not a crossing: %+v", touch)
	}
}

// TestCrossingsInputs: points in any order, unpaired and non-positive
// values left out, a point with nothing left dropped.
func TestCrossingsInputs(t *testing.T) {
	pts := []PairPoint{
		{X: 100, A: []float64{10, 10, 99}, B: []float64{20, 20}},
		{X: 1, A: []float64{10, 0, 10}, B: []float64{5, 5, 5}},
		{X: 10, A: []float64{-1}, B: []float64{5}},
		{X: 0, A: []float64{10}, B: []float64{1}},
	}
	got := Crossings(pts)
	if len(got) != 1 || got[0].From != 1 || got[0].To != 100 || got[0].Before.N != 2 || got[0].After.N != 2 {
		t.Fatalf("crossings %+v: want one from 1 to 100, two pairs at each end", got)
	}
	// No spread in either end's pairs: a zero-width interval, resolved,
	// at the estimate.
	if c := got[0]; !c.Resolved || !close(c.Lo, c.At) || !close(c.Hi, c.At) || !close(c.At, 10) {
		t.Errorf("crossing %+v: want resolved at 10 with a zero-width interval", c)
	}
	if len(Crossings(nil)) != 0 || len(Crossings(pts[:1])) != 0 {
		t.Errorf("one point or none cannot cross")
	}
}

// TestCrossingsCoverage: on data with lognormal noise and a known
// crossing, the interval holds the crossing in at least 95% of resolved
// trials (it is built to be conservative: two 97.5% ends).
func TestCrossingsCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{10, 100}
	// log(B/A) = -0.3 at 10, +0.3 at 100: they cross at sqrt(1000).
	truth := math.Sqrt(1000)
	f := piecewise([2]float64{10, -0.3}, [2]float64{100, 0.3})
	const trials = 2000
	held, resolved := 0, 0
	for range trials {
		var pts []PairPoint
		for _, x := range xs {
			p := PairPoint{X: x}
			for range 5 {
				p.A = append(p.A, 1000*math.Exp(0.05*rng.NormFloat64()))
				p.B = append(p.B, 1000*math.Exp(f(x)+0.05*rng.NormFloat64()))
			}
			pts = append(pts, p)
		}
		cs := Crossings(pts)
		if len(cs) != 1 || !cs[0].Resolved {
			continue
		}
		resolved++
		if cs[0].Lo <= truth && truth <= cs[0].Hi {
			held++
		}
	}
	if resolved < trials*9/10 {
		t.Fatalf("only %d of %d trials resolved", resolved, trials)
	}
	t.Logf("%d resolved, interval held %d", resolved, held)
	if cover := float64(held) / float64(resolved); cover < 0.95 {
		t.Errorf("the interval held the crossing in %.3f of resolved trials, want at least 0.95", cover)
	}
}

// TestPairPointRatio: a point's ratio is the geometric mean of its
// paired ratios with the t interval of the mean log ratio at 97.5%; it
// agrees with the ratio a crossing gives at its ends.
func TestPairPointRatio(t *testing.T) {
	// Log ratios 0 and log 4: mean log 2, standard error log 2, and t at
	// 0.9875 with 1 degree of freedom is 25.4517 (tables).
	p := PairPoint{X: 3, A: []float64{10, 10, 5}, B: []float64{10, 40}}
	r, ok := p.Ratio()
	half := 25.451699579357 * math.Log(2)
	if !ok || r.X != 3 || r.N != 2 || !close(r.Ratio, 2) || !near(math.Log(r.Lo), math.Log(2)-half, 1e-6) ||
		!near(math.Log(r.Hi), math.Log(2)+half, 1e-6) {
		t.Errorf("ratio %+v, %v: want 2 over 2 pairs, log interval log 2 ± %.6f", r, ok, half)
	}
	if !r.Holds1() {
		t.Errorf("ratio %+v: two pairs this far apart leave the order unknown", r)
	}
	if _, ok := (PairPoint{X: 3, A: []float64{0}, B: []float64{1}}).Ratio(); ok {
		t.Error("a point with no valid pair has a ratio")
	}
	pts := pairCurves([]float64{10, 100}, func(x float64) float64 { return math.Log(x / 30) }, reps...)
	c := Crossings(pts)
	before, _ := pts[0].Ratio()
	after, _ := pts[1].Ratio()
	if len(c) != 1 || !close(c[0].Before.Lo, before.Lo) || !close(c[0].After.Hi, after.Hi) {
		t.Errorf("crossing %+v, ratios %+v and %+v: want the same ends", c, before, after)
	}
}
