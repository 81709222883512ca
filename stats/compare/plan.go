package compare

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// How many sittings and runs a comparison needs, from the variance
// measured at each level (Kalibera and Jones, "Rigorous Benchmarking in
// Reasonable Time", ISMM 2013): the variance components of the two levels
// are estimated from the sittings at hand (Components), the runs per
// sitting are chosen from their ratio and the cost of a sitting against a
// run, and the sittings from a simulation of the comparison itself
// (Plan).

// SittingCost is what a sitting costs against one run, in runs: a boot
// (or waiting for a quiet machine) and its warm-up take minutes, a run
// seconds. It weighs runs against sittings in Plan.
const SittingCost = 10

// MaxSittings and MaxRuns bound what Plan looks at, a side.
const (
	MaxSittings = 20
	MaxRuns     = 20
)

// planTrials is how many simulated comparisons judge each plan.
const planTrials = 1000

// Components are the between-sitting and within-sitting variance
// components of log values of sides' sittings' runs (side, sitting, run),
// each side about its own mean: the one-way random-effects analysis of
// variance's method of moments (unbalanced: Searle, Casella and McCulloch,
// "Variance Components", 1992, ch. 3), the between part truncated at 0.
// ok is false with fewer than two sittings on every side, no run repeated
// in a sitting, or a value that is not positive.
func Components(sides [][][]float64) (between, within float64, ok bool) {
	var ssw, ssb, sumN2overN, nb float64
	var n, groups, dfb int
	for _, side := range sides {
		if !positive(side) {
			return 0, 0, false
		}
		means := sittingMeans(side, true)
		var sideN, sideSum, sideN2 float64
		for i, xs := range nonEmpty(side) {
			for _, x := range xs {
				d := math.Log(x) - means[i]
				ssw += d * d
			}
			k := float64(len(xs))
			sideN += k
			sideSum += k * means[i]
			sideN2 += k * k
		}
		n += int(sideN)
		groups += len(means)
		if len(means) < 2 {
			continue // its runs tell of the within part only
		}
		grand := sideSum / sideN
		for i, xs := range nonEmpty(side) {
			d := means[i] - grand
			ssb += float64(len(xs)) * d * d
		}
		nb += sideN
		dfb += len(means) - 1
		sumN2overN += sideN2 / sideN
	}
	dfw := n - groups
	if dfb == 0 || dfw <= 0 {
		return 0, 0, false
	}
	msw, msb := ssw/float64(dfw), ssb/float64(dfb)
	n0 := (nb - sumN2overN) / float64(dfb)
	return math.Max(0, (msb-msw)/n0), msw, true
}

// nonEmpty are a side's sittings that hold runs.
func nonEmpty(side [][]float64) [][]float64 {
	var out [][]float64
	for _, xs := range side {
		if len(xs) > 0 {
			out = append(out, xs)
		}
	}
	return out
}

// Need is how many sittings of how many runs a side find a change: 0
// sittings when MaxSittings are not enough.
type Need struct {
	Change   float64 `json:"change"`
	Sittings int     `json:"sittings"`
	Runs     int     `json:"runs"`
}

// Plan is the sittings and runs a side with which CompareSittings calls a
// change of d (0.05: 5%) Power of the time, given the between- and
// within-sitting variance components of log values and the least floor.
// Runs per sitting: the optimal allocation of a two-stage design,
// sqrt(SittingCost * within / between) (Cochran, "Sampling Techniques",
// 1977, 10.6; the rule Kalibera and Jones 2013 give for each level),
// within [2, MaxRuns]. Sittings: the fewest, from 2, whose simulated
// comparisons (planTrials, drawn from seed: repeatable) call the change
// often enough. A sitting's mean of m runs is drawn whole, normal with
// variance between + within/m, which is its distribution under the model.
func Plan(between, within, d, floor float64, seed uint64) Need {
	need := Need{Change: d}
	if math.IsNaN(between) || math.IsNaN(within) || d <= 0 {
		return need
	}
	m := MaxRuns
	if between > 0 {
		m = int(math.Round(math.Sqrt(SittingCost * within / between)))
	}
	need.Runs = min(max(m, 2), MaxRuns)
	sd := math.Sqrt(between + within/float64(need.Runs))
	found := func(k int) bool {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		noise := distuv.Normal{Mu: 0, Sigma: math.Max(sd, 1e-12), Src: rng}
		a, b := make([]float64, k), make([]float64, k)
		hits := 0
		for range planTrials {
			for i := range k {
				a[i], b[i] = noise.Rand(), math.Log1p(d)+noise.Rand()
			}
			if calledUp(a, b, floor) {
				hits++
			}
		}
		return float64(hits) >= Power*planTrials
	}
	need.Sittings = fewest(2, MaxSittings, found)
	return need
}

// calledUp says whether CompareSittings, given sitting means of log
// values a and b, calls b higher than a beyond the floor.
func calledUp(a, b []float64, floor float64) bool {
	diff, _, _, p := welchTest(a, b)
	f := math.Max(floor, math.Expm1(pooledSD(a, b)))
	return judge(p, math.Expm1(diff), f, HigherIsBetter, false) == Better
}
