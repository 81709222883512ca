// Package compare holds the statistics of pipebench compare: a figure's
// repetitions in each record summarised (median and its 95% confidence
// interval), the change of a record against the first with a confidence
// interval, and whether that change is significant, by the Mann-Whitney U
// test at alpha 0.05. The summary and the test are benchmath's
// (golang.org/x/perf, benchstat's own statistics); the interval of the
// change is the Hodges-Lehmann interval that goes with the U test, its
// bounds read off the U distribution of go-moremath (the library
// benchmath's test uses). Numbers in, numbers out: no I/O.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package compare

import (
	"math"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// Confidence is the level of every interval; Alpha the U test's threshold.
const (
	Confidence = 0.95
	Alpha      = 0.05
)

// Direction says which way a figure improves.
type Direction int

const (
	// Neutral figures have no better way (samples per call: a shape of the
	// workload, not a cost); a change is reported as a change.
	Neutral Direction = iota
	HigherIsBetter
	LowerIsBetter
)

func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	}
	return "no better way"
}

// Summary is one record's repetitions of one figure.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	// Lo and Hi bound the 95% confidence interval of the median; they are
	// infinite when there are too few repetitions for one (Warnings says
	// how many are needed).
	Lo       float64  `json:"ci_lo"`
	Hi       float64  `json:"ci_hi"`
	Min      float64  `json:"min"`
	Max      float64  `json:"max"`
	Warnings []string `json:"warnings,omitempty"`
}

// Summarize summarises xs (not modified).
func Summarize(xs []float64) Summary {
	s := benchmath.NewSample(slices.Clone(xs), &benchmath.DefaultThresholds)
	if len(s.Values) == 0 {
		return Summary{Median: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1), Min: math.NaN(), Max: math.NaN()}
	}
	b := benchmath.AssumeNothing.Summary(s, Confidence)
	out := Summary{N: len(s.Values), Median: b.Center, Lo: b.Lo, Hi: b.Hi, Min: s.Values[0], Max: s.Values[len(s.Values)-1]}
	for _, w := range b.Warnings {
		out.Warnings = append(out.Warnings, w.Error())
	}
	return out
}

// Spread is the half-width of the median's interval as a share of the
// median (benchstat's ±%); +Inf when there is no interval.
func (s Summary) Spread() float64 {
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || s.Median == 0 {
		return math.Inf(1)
	}
	return max(s.Hi/s.Median-1, 1-s.Lo/s.Median)
}

// Verdict is what a change reads as.
type Verdict string

const (
	// Same: not significant (benchstat's "~").
	Same    Verdict = "~"
	Better  Verdict = "better"
	Worse   Verdict = "worse"
	Changed Verdict = "changed" // significant, for a Neutral figure
	// TooFew: too few repetitions for the test to ever reject at Alpha.
	TooFew Verdict = "too few"
)

// Change is record b's figure against record a's.
type Change struct {
	// Ratio is b's median over a's, less 1: +0.05 is 5% more.
	Ratio float64 `json:"change"`
	// Lo and Hi bound the 95% interval of the change, from the
	// Hodges-Lehmann interval of the shift of log values: NaN when the
	// samples are too small for one.
	Lo float64 `json:"ci_lo"`
	Hi float64 `json:"ci_hi"`
	// P is the U test's p-value; N1 and N2 the samples' sizes.
	P       float64 `json:"p"`
	N1      int     `json:"n1"`
	N2      int     `json:"n2"`
	Verdict Verdict `json:"verdict"`
	// Note says why there is no verdict or interval.
	Notes []string `json:"notes,omitempty"`
}

// Significant says whether the U test rejects sameness at Alpha.
func (c Change) Significant() bool {
	return c.Verdict == Better || c.Verdict == Worse || c.Verdict == Changed
}

// Compare is b against a for a figure that improves in direction dir.
func Compare(a, b []float64, dir Direction) Change {
	sa := benchmath.NewSample(slices.Clone(a), &benchmath.DefaultThresholds)
	sb := benchmath.NewSample(slices.Clone(b), &benchmath.DefaultThresholds)
	c := Change{Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: math.NaN(), N1: len(a), N2: len(b), Verdict: TooFew}
	if len(a) == 0 || len(b) == 0 {
		c.Notes = append(c.Notes, "no repetition in one of the records")
		return c
	}
	ma := benchmath.AssumeNothing.Summary(sa, Confidence).Center
	mb := benchmath.AssumeNothing.Summary(sb, Confidence).Center
	if ma != 0 {
		c.Ratio = mb/ma - 1
	} else if mb == 0 {
		c.Ratio = 0
	}
	cmp := benchmath.AssumeNothing.Compare(sa, sb)
	c.P = cmp.P
	for _, w := range cmp.Warnings {
		c.Notes = append(c.Notes, w.Error())
	}
	switch {
	case cmp.P < cmp.Alpha:
		c.Verdict = Changed
		up := mb > ma
		if dir == HigherIsBetter && up || dir == LowerIsBetter && !up {
			c.Verdict = Better
		} else if dir != Neutral {
			c.Verdict = Worse
		}
	case slices.ContainsFunc(c.Notes, func(n string) bool { return strings.HasPrefix(n, "need ") }):
		c.Verdict = TooFew
	default:
		c.Verdict = Same
	}
	c.Lo, c.Hi = shiftCI(sa.Values, sb.Values)
	return c
}

// shiftCI is the Hodges-Lehmann 95% interval of the shift from a to b,
// taken on logarithms so that it is an interval of b/a - 1: the order
// statistics of the pairwise differences log b_j - log a_i whose ranks the
// U distribution puts at the 2.5% and 97.5% points. NaN, NaN when a value
// is not positive or the samples are too small for the interval.
func shiftCI(a, b []float64) (lo, hi float64) {
	n, m := len(a), len(b)
	d := make([]float64, 0, n*m)
	for _, x := range a {
		for _, y := range b {
			if x <= 0 || y <= 0 {
				return math.NaN(), math.NaN()
			}
			d = append(d, math.Log(y)-math.Log(x))
		}
	}
	slices.Sort(d)
	u := stats.UDist{N1: n, N2: m}
	// k is the largest count with P(U < k) <= (1-Confidence)/2: the
	// interval runs from the k-th smallest difference to the k-th largest.
	k := 0
	for k < n*m && u.CDF(float64(k)) <= (1-Confidence)/2 {
		k++
	}
	if k == 0 {
		return math.NaN(), math.NaN()
	}
	return math.Exp(d[k-1]) - 1, math.Exp(d[n*m-k]) - 1
}

// Geomean is the geometric mean of xs; NaN when one is not positive or
// there is none.
func Geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		if x <= 0 || math.IsNaN(x) {
			return math.NaN()
		}
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}
