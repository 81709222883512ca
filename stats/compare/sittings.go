package compare

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The sitting as the unit of replication.
//
// Kalibera and Jones ("Quantifying Performance Changes with Effect Size
// Confidence Intervals", University of Kent technical report 4-12, 2012)
// model a measurement as random effects nested in levels (here: runs in a
// sitting, sittings of a side), and report a change as a ratio with a
// confidence interval built over every level. The variance of a side's
// mean is estimated, whatever the levels below, by the variance of its
// top-level means over their count: the runs of one sitting are not
// independent samples of the side, its sittings are.
//
// Their interval is either a bootstrap that resamples the top level or a
// parametric one (Fieller's, for a ratio of means). With the two to five
// sittings a side that a kernel comparison can afford (each a boot), the
// bootstrap has too few units to resample: two sittings give three
// distinct resamples. So compare takes the parametric way on logarithms:
// the change is a ratio, and on log values a ratio is a difference, so
// that the interval of the difference of the sides' means of sitting log
// means is a t interval, and its exponential the ratio's interval. The two
// sides' between-sitting variances need not be equal (a change may change
// the spread too): Welch's t, with Satterthwaite's degrees of freedom.

// positive says whether every value of every side is above 0 (and so has
// a logarithm).
func positive(sides ...[][]float64) bool {
	for _, side := range sides {
		for _, xs := range side {
			for _, x := range xs {
				if !(x > 0) {
					return false
				}
			}
		}
	}
	return true
}

// sittingMeans is each non-empty sitting's mean of its runs, of their
// logarithms when logs is set.
func sittingMeans(side [][]float64, logs bool) []float64 {
	var out []float64
	for _, xs := range side {
		if len(xs) == 0 {
			continue
		}
		s := 0.0
		for _, x := range xs {
			if logs {
				x = math.Log(x)
			}
			s += x
		}
		out = append(out, s/float64(len(xs)))
	}
	return out
}

// welch is Welch's t test of the means of a and b (at least two values
// each): the difference of b's mean from a's, its 95% interval, and the
// two-sided p-value. Equal values on both sides give p 1 (no difference)
// or 0 (a difference and no variance) and a point interval.
func welch(a, b []float64) (diff, lo, hi, p float64) {
	diff, se, df, p := welchTest(a, b)
	if se == 0 {
		return diff, diff, diff, p
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-Confidence)/2)
	return diff, diff - q*se, diff + q*se, p
}

// welchTest is welch without the interval: the difference, its standard
// error, Satterthwaite's degrees of freedom and the p-value.
func welchTest(a, b []float64) (diff, se, df, p float64) {
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	diff = mb - ma
	ea, eb := va/float64(len(a)), vb/float64(len(b))
	se = math.Sqrt(ea + eb)
	if se == 0 || math.IsNaN(se) {
		if diff == 0 {
			return 0, 0, 0, 1
		}
		return diff, 0, 0, 0
	}
	df = (ea + eb) * (ea + eb) / (ea*ea/float64(len(a)-1) + eb*eb/float64(len(b)-1))
	p = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(diff)/se)
	return diff, se, df, p
}

// pooledSD is the standard deviation of the sitting means about their own
// side's mean, pooled over both sides: how far sittings of one side
// spread.
func pooledSD(a, b []float64) float64 {
	va, vb := stat.Variance(a, nil), stat.Variance(b, nil)
	na, nb := float64(len(a)-1), float64(len(b)-1)
	return math.Sqrt((na*va + nb*vb) / (na + nb))
}

// CompareSittings is b against a, each side a list of sittings (records)
// and each sitting its runs, for a figure that improves in direction dir:
// the change of the geometric mean of the sittings' means, its interval
// and p-value from Welch's t test on the sittings' mean log values. The
// floor is the larger of floor and the figure's spread between sittings
// (pooledSD as a ratio): a change smaller than the spread of one side's
// sittings is not called. A figure that is 0 in some run is compared on
// its values, the change relative to a's mean. Fewer than two sittings on
// a side is too few.
func CompareSittings(a, b [][]float64, dir Direction, floor float64) Change {
	logs := positive(a, b)
	ma, mb := sittingMeans(a, logs), sittingMeans(b, logs)
	c := Change{Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: math.NaN(), Adjusted: math.NaN(),
		N1: runs(a), N2: runs(b), K1: len(ma), K2: len(mb), Floor: floor, Method: WelchT, Verdict: TooFew}
	if len(ma) < 2 || len(mb) < 2 {
		c.Notes = append(c.Notes, "need 2 sittings (records) a side or more to compare sittings")
		return c
	}
	diff, lo, hi, p := welch(ma, mb)
	sd := pooledSD(ma, mb)
	if logs {
		c.Ratio, c.Lo, c.Hi = math.Expm1(diff), math.Expm1(lo), math.Expm1(hi)
		c.Floor = math.Max(floor, math.Expm1(sd))
	} else {
		base := stat.Mean(ma, nil)
		if base == 0 {
			c.Notes = append(c.Notes, "the base is 0: no ratio")
			return c
		}
		c.Ratio, c.Lo, c.Hi = diff/math.Abs(base), lo/math.Abs(base), hi/math.Abs(base)
		c.Floor = math.Max(floor, sd/math.Abs(base))
	}
	c.P = p
	c.Verdict = judge(p, c.Ratio, c.Floor, dir, false)
	return c
}

// runs counts the runs of a side's sittings.
func runs(side [][]float64) int {
	n := 0
	for _, xs := range side {
		n += len(xs)
	}
	return n
}

// SummarizeSittings summarises a side of several sittings: the geometric
// mean of the sittings' means (their plain mean when a value is not
// positive) and its 95% t interval over the sittings; Min and Max over
// every run. One sitting is Summarize of its runs.
func SummarizeSittings(side [][]float64) Summary {
	var all []float64
	for _, xs := range side {
		all = append(all, xs...)
	}
	means := sittingMeans(side, positive(side))
	if len(means) < 2 {
		return Summarize(all)
	}
	s := Summarize(all)
	s.Sittings, s.Warnings = len(means), nil
	m, v := stat.MeanVariance(means, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(means) - 1)}
	half := t.Quantile(1-(1-Confidence)/2) * math.Sqrt(v/float64(len(means)))
	s.Median, s.Lo, s.Hi = m, m-half, m+half
	if positive(side) {
		s.Median, s.Lo, s.Hi = math.Exp(m), math.Exp(m-half), math.Exp(m+half)
	}
	return s
}
