package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// CrossingLevel is the level of a crossing's interval.
const CrossingLevel = 0.95

// endLevel is the level of the interval of the ratio at each end of a
// crossing's bracket: 97.5%, so that both ends' intervals hold at once
// with probability at least 95% (Bonferroni's inequality; Dunn, "Multiple
// comparisons among means", Journal of the American Statistical
// Association 56, 1961, 52-64), and the crossing's interval, drawn from
// them, is a 95% interval.
const endLevel = 1 - (1-CrossingLevel)/2

// PairPoint is two curves at one x: the repetitions of each, paired by
// index. The i-th value of A and the i-th of B were measured together (in
// a sweep, in the same round), so that their ratio is one repetition of
// the ratio; extra values of the longer list have no partner and are left
// out, and so is a pair with a value that is not positive.
type PairPoint struct {
	X    float64
	A, B []float64
}

// RatioAt is the ratio of the curve that overtakes to the one it
// overtakes at one end of a crossing's bracket: the geometric mean of the
// paired ratios, and its 97.5% interval (Lo..Hi) when N >= 2; Lo = Hi =
// Ratio when N is 1.
type RatioAt struct {
	X     float64 `json:"x"`
	Ratio float64 `json:"ratio"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	N     int     `json:"n"`
}

// Holds1 reports whether the ratio's interval holds 1: the order of the
// two curves at that x is not known. A ratio without an interval (N = 1)
// holds 1 only when it is 1.
func (r RatioAt) Holds1() bool { return r.Lo <= 1 && r.Hi >= 1 }

// Crossing is a place where one curve overtakes the other as x grows: the
// log ratio of the two changes sign between two measured x.
type Crossing struct {
	// BOvertakesA is set when B overtakes A (B/A goes from below 1 to
	// above), clear when A overtakes B.
	BOvertakesA bool `json:"b_overtakes_a"`
	// From and To are the measured x on either side (the bracket).
	From float64 `json:"from"`
	To   float64 `json:"to"`
	// At is where the log ratio, interpolated linearly against log x
	// between From and To, is 0.
	At float64 `json:"at"`
	// Lo and Hi bound At's 95% interval, when Interval is set.
	Lo float64 `json:"lo,omitempty"`
	Hi float64 `json:"hi,omitempty"`
	// Interval is set when the crossing has one: both ends have
	// repetitions and the crossing is Resolved.
	Interval bool `json:"interval"`
	// Resolved is set when the order of the curves is known at both ends:
	// neither end's ratio interval holds 1. It is clear when an end has no
	// repetitions (no interval to tell by).
	Resolved bool `json:"resolved"`
	// Tie is set when the curves were measured equal (a log ratio of
	// exactly 0) at the x between From and To; At is then the geometric
	// middle of those x, and there is no interval.
	Tie bool `json:"tie,omitempty"`
	// Before and After are the ratio of the curve that overtakes to the
	// other at From (below 1) and at To (above 1).
	Before RatioAt `json:"before"`
	After  RatioAt `json:"after"`
}

// logRatio is log(B/A) at one x: the mean of the paired log ratios and
// the half-width of its endLevel t interval (0 when n < 2).
type logRatio struct {
	x, lx, mean, half float64
	n                 int
}

// Crossings finds every place where the two curves of pts cross: a sign
// change of the log ratio log(B/A) between adjacent x (a point where it is
// exactly 0 is a tie, and the sign change is read across it; a tie with
// the same sign on both sides is a touch, not a crossing). pts need not be
// sorted; points without a valid pair are left out.
//
// At each x the log ratio is the mean of the paired log ratios, and its
// interval Student's t interval of that mean (Student, "The probable error
// of a mean", Biometrika 6, 1908, 1-25) at the 97.5% level (endLevel). A t
// interval rather than a rank interval because the pairs are few (a sweep's
// -count): with five, the signed-rank interval cannot reach 95% at all,
// and t's needs only two. The crossing's location is the zero of the log
// ratio interpolated linearly against log x across the bracket; its
// interval is the zeros of the interpolated upper and of the lower bounds
// (the earliest and the latest crossing that both ends' intervals allow),
// given only when the crossing is resolved: when an end's interval holds
// 1, the curves' order there is not known and the crossing may lie
// outside the bracket, or not be one.
func Crossings(pts []PairPoint) []Crossing {
	rs := logRatios(pts)
	var nz []int // the points whose log ratio is not exactly 0
	for i, r := range rs {
		if r.mean != 0 {
			nz = append(nz, i)
		}
	}
	var out []Crossing
	for i := 1; i < len(nz); i++ {
		j, k := nz[i-1], nz[i]
		if (rs[j].mean < 0) != (rs[k].mean < 0) {
			out = append(out, crossing(rs, j, k))
		}
	}
	return out
}

// logRatios are the log ratios of pts in increasing x.
func logRatios(pts []PairPoint) []logRatio {
	var rs []logRatio
	for _, p := range pts {
		if !(p.X > 0) {
			continue
		}
		var d []float64
		for i := range min(len(p.A), len(p.B)) {
			a, b := p.A[i], p.B[i]
			if a > 0 && b > 0 && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
				d = append(d, math.Log(b)-math.Log(a))
			}
		}
		if len(d) == 0 {
			continue
		}
		r := logRatio{x: p.X, lx: math.Log(p.X), n: len(d)}
		if len(d) == 1 {
			r.mean = d[0]
		} else {
			var sd float64
			r.mean, sd = stat.MeanStdDev(d, nil)
			t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(d) - 1)}
			r.half = t.Quantile(1-(1-endLevel)/2) * stat.StdErr(sd, float64(len(d)))
		}
		rs = append(rs, r)
	}
	slices.SortStableFunc(rs, func(a, b logRatio) int {
		switch {
		case a.lx < b.lx:
			return -1
		case a.lx > b.lx:
			return 1
		}
		return 0
	})
	return rs
}

// crossing is the crossing between rs[j] and rs[k], whose log ratios
// have opposite signs and between which every log ratio is exactly 0.
func crossing(rs []logRatio, j, k int) Crossing {
	s := 1.0 // orients the log ratio so that it rises through 0
	if rs[j].mean > 0 {
		s = -1
	}
	end := func(r logRatio) RatioAt {
		m := s * r.mean
		return RatioAt{X: r.x, Ratio: math.Exp(m), Lo: math.Exp(m - r.half), Hi: math.Exp(m + r.half), N: r.n}
	}
	c := Crossing{BOvertakesA: s > 0, From: rs[j].x, To: rs[k].x, Before: end(rs[j]), After: end(rs[k])}
	withInterval := rs[j].n >= 2 && rs[k].n >= 2
	c.Resolved = withInterval && c.Before.Hi < 1 && c.After.Lo > 1
	if k > j+1 {
		c.Tie = true
		c.At = math.Exp((rs[j+1].lx + rs[k-1].lx) / 2)
		return c
	}
	// zero is where the line through (lx_j, y0) and (lx_k, y1), y0 < 0 <
	// y1, meets 0.
	zero := func(y0, y1 float64) float64 {
		return math.Exp(rs[j].lx + y0/(y0-y1)*(rs[k].lx-rs[j].lx))
	}
	lo := func(r logRatio) float64 { return s*r.mean - r.half }
	hi := func(r logRatio) float64 { return s*r.mean + r.half }
	c.At = zero(s*rs[j].mean, s*rs[k].mean)
	if c.Resolved {
		// The highest line the intervals allow crosses first, the lowest
		// last.
		c.Interval = true
		c.Lo, c.Hi = zero(hi(rs[j]), hi(rs[k])), zero(lo(rs[j]), lo(rs[k]))
	}
	return c
}

// Ratio is B/A at p alone: the geometric mean of its paired ratios and
// its interval at the level of a crossing's ends (the t interval of
// Crossings), as a crossing's Before and After give it at theirs; false
// when p has no valid pair. It tells the order of two curves at an x
// where they do not cross (Holds1: not known).
func (p PairPoint) Ratio() (RatioAt, bool) {
	rs := logRatios([]PairPoint{p})
	if len(rs) == 0 {
		return RatioAt{}, false
	}
	r := rs[0]
	return RatioAt{X: r.x, Ratio: math.Exp(r.mean), Lo: math.Exp(r.mean - r.half), Hi: math.Exp(r.mean + r.half), N: r.n}, true
}
