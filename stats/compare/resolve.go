package compare

import (
	"math"
	"math/rand/v2"
	"slices"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Power is the share of trials in which Resolve asks the U test to find
// a change: 80%, the usual planning figure.
const Power = 0.8

// resolveTrials is how many simulated comparisons judge each size.
const resolveTrials = 400

// RelativeSpread is the robust spread of xs as a share of their median:
// the median absolute deviation scaled to a standard deviation (x1.4826,
// exact for normal samples), over the median. NaN with fewer than 3 values.
func RelativeSpread(xs []float64) float64 {
	if len(xs) < 3 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	med := stat.Quantile(0.5, stat.Empirical, s, nil)
	dev := make([]float64, len(s))
	for i, x := range s {
		dev[i] = math.Abs(x - med)
	}
	slices.Sort(dev)
	mad := stat.Quantile(0.5, stat.Empirical, dev, nil)
	if med == 0 {
		return math.NaN()
	}
	return 1.4826 * mad / math.Abs(med)
}

// median is the median of sorted xs.
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Resolve is the fewest runs a side, up to maxN, with which Compare calls
// a change of d (0.05 for 5%) in at least Power of simulated comparisons
// inside one sitting: the U test rejects at Alpha and the change of the
// medians is larger than floor, when runs spread normally with relative
// spread spread (RelativeSpread of the runs); 0 when maxN is not enough.
// The trials are drawn from seed, so the answer is repeatable. No fewer
// than 4 a side can ever be significant at 0.05.
func Resolve(spread, d, floor float64, maxN int, seed uint64) int {
	if math.IsNaN(spread) || d == 0 || maxN < 4 {
		return 0
	}
	th := benchmath.DefaultThresholds
	// found says whether n a side find the change often enough. Each size
	// draws its own trials from (seed, n), so a size's answer does not
	// depend on which sizes were tried before it.
	found := func(n int) bool {
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		noise := distuv.Normal{Mu: 0, Sigma: math.Max(spread, 1e-12), Src: rng}
		hits := 0
		for range resolveTrials {
			a, b := make([]float64, n), make([]float64, n)
			for i := range n {
				a[i] = 1 + noise.Rand()
				b[i] = (1 + d) * (1 + noise.Rand())
			}
			sa, sb := benchmath.NewSample(a, &th), benchmath.NewSample(b, &th)
			if c := benchmath.AssumeNothing.Compare(sa, sb); c.P < th.CompareAlpha && median(sb.Values)/median(sa.Values)-1 > floor {
				hits++
			}
		}
		return float64(hits) >= Power*resolveTrials
	}
	return fewest(4, maxN, found)
}

// fewest is the least n in [lo, hi] for which found holds, found growing
// with n (a test's power does), by bisection; 0 when not even hi is
// enough.
func fewest(lo, hi int, found func(int) bool) int {
	if !found(hi) {
		return 0
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if found(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
