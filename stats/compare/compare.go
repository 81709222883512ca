// Package compare holds the statistics of pipebench compare. Variance
// lives at two levels here: the runs of one sitting (a boot, or one quiet
// window of a machine), and the sittings themselves, which drift apart by
// more than runs inside one do (Kalibera and Jones, "Rigorous Benchmarking
// in Reasonable Time", ISMM 2013). A record is one sitting.
//
// With one record a side, Compare tests the runs: each side's repetitions
// summarised (median and its 95% confidence interval), the change with the
// Hodges-Lehmann interval, and the Mann-Whitney U test at alpha 0.05. The
// summary and the test are benchmath's (golang.org/x/perf, benchstat's own
// statistics); the interval's bounds are read off the U distribution of
// go-moremath (the library benchmath's test uses). Such a verdict covers
// only drift inside each sitting.
//
// With several records a side, CompareSittings makes the sitting the unit
// of replication (sittings.go); Components and Plan measure the two levels
// and say how many sittings and runs a change needs (plan.go). A change is
// better or worse only when significant and larger than a floor (judge);
// the many figures besides the one asked about are judged after the
// Benjamini-Hochberg adjustment (Adjust). Numbers in, numbers out: no I/O.
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

// Summary is one side's repetitions of one figure.
type Summary struct {
	// N counts the runs, Sittings the records they come from.
	N int `json:"n"`
	// Median is the runs' median with one sitting; with several, the
	// geometric mean of the sittings' means (SummarizeSittings).
	Median float64 `json:"median"`
	// Lo and Hi bound the 95% confidence interval of Median; they are
	// infinite when there are too few repetitions for one (Warnings says
	// how many are needed).
	Lo       float64  `json:"ci_lo"`
	Hi       float64  `json:"ci_hi"`
	Min      float64  `json:"min"`
	Max      float64  `json:"max"`
	Sittings int      `json:"sittings"`
	Warnings []string `json:"warnings,omitempty"`
}

// Summarize summarises xs (not modified).
func Summarize(xs []float64) Summary {
	s := benchmath.NewSample(slices.Clone(xs), &benchmath.DefaultThresholds)
	if len(s.Values) == 0 {
		return Summary{Median: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1), Min: math.NaN(), Max: math.NaN(), Sittings: 1}
	}
	b := benchmath.AssumeNothing.Summary(s, Confidence)
	out := Summary{N: len(s.Values), Median: b.Center, Lo: b.Lo, Hi: b.Hi, Min: s.Values[0], Max: s.Values[len(s.Values)-1], Sittings: 1}
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

// Method names the test behind a change.
type Method string

const (
	// UTest: the runs of one sitting a side, the Mann-Whitney U test and
	// the Hodges-Lehmann interval (Compare).
	UTest Method = "U test over runs"
	// WelchT: the sittings, Welch's t test on their means of log values
	// (CompareSittings).
	WelchT Method = "Welch t over sittings"
)

// Change is side b's figure against side a's.
type Change struct {
	// Ratio is b's centre over a's, less 1: +0.05 is 5% more. The centre
	// is the median of the runs with one sitting a side, the geometric
	// mean of the sittings' means with several.
	Ratio float64 `json:"change"`
	// Lo and Hi bound the 95% interval of the change: NaN when the samples
	// are too small for one.
	Lo float64 `json:"ci_lo"`
	Hi float64 `json:"ci_hi"`
	// P is the test's p-value; Adjusted the p-value after the
	// Benjamini-Hochberg adjustment over the figures judged with it (NaN for the figure the
	// comparison asks about, which is not adjusted).
	P        float64 `json:"p"`
	Adjusted float64 `json:"p_adjusted"`
	// N1 and N2 are the sides' runs, K1 and K2 their sittings (records).
	N1 int `json:"n1"`
	N2 int `json:"n2"`
	K1 int `json:"sittings1"`
	K2 int `json:"sittings2"`
	// Floor is the least change called better or worse (a share).
	Floor   float64 `json:"floor"`
	Method  Method  `json:"method"`
	Verdict Verdict `json:"verdict"`
	// Note says why there is no verdict or interval.
	Notes []string `json:"notes,omitempty"`
}

// Significant says whether the change was called: significant and larger
// than its floor.
func (c Change) Significant() bool {
	return c.Verdict == Better || c.Verdict == Worse || c.Verdict == Changed
}

// Compare is b against a, the runs of one sitting a side, for a figure
// that improves in direction dir: called only when the U test rejects at
// Alpha and the change is larger than floor.
func Compare(a, b []float64, dir Direction, floor float64) Change {
	sa := benchmath.NewSample(slices.Clone(a), &benchmath.DefaultThresholds)
	sb := benchmath.NewSample(slices.Clone(b), &benchmath.DefaultThresholds)
	c := Change{Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: math.NaN(), Adjusted: math.NaN(), N1: len(a), N2: len(b),
		K1: 1, K2: 1, Floor: floor, Method: UTest, Verdict: TooFew}
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
	tooFew := cmp.P >= cmp.Alpha && slices.ContainsFunc(c.Notes, func(n string) bool { return strings.HasPrefix(n, "need ") })
	c.Verdict = judge(c.P, c.Ratio, floor, dir, tooFew)
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
