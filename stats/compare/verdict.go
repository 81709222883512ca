package compare

import (
	"math"
	"slices"
)

// DefaultFloor is the least change called better or worse when the
// between-sitting spread is unknown: 2%.
const DefaultFloor = 0.02

// judge is the verdict of a change of ratio (b/a - 1) whose test gave p:
// better, worse or changed only when p < Alpha AND the change is larger
// than floor (practical significance: a change smaller than the machine's
// drift is no evidence of anything, however small its p); too few when
// the test cannot tell; ~ otherwise.
func judge(p, ratio, floor float64, dir Direction, tooFew bool) Verdict {
	switch {
	case tooFew || math.IsNaN(p):
		return TooFew
	case p >= Alpha || math.IsNaN(ratio) || math.Abs(ratio) <= floor:
		return Same
	case dir == Neutral:
		return Changed
	case (ratio > 0) == (dir == HigherIsBetter):
		return Better
	}
	return Worse
}

// Rejudge sets c's verdict again from p, a p-value adjusted for the many
// figures tested at once (Adjust), keeping its change and floor; too few
// stays too few.
func (c *Change) Rejudge(p float64, dir Direction) {
	if c.Verdict == TooFew {
		return
	}
	c.Adjusted = p
	c.Verdict = judge(p, c.Ratio, c.Floor, dir, false)
}

// Adjust is the Benjamini-Hochberg adjustment of the p-values ps (Y.
// Benjamini and Y. Hochberg, "Controlling the False Discovery Rate: a
// Practical and Powerful Approach to Multiple Testing", Journal of the
// Royal Statistical Society B 57, 1995): sorted ascending, the i-th
// smallest (from 1) of m is multiplied by m/i, and each kept no larger
// than those above it, at most 1. Rejecting where the adjusted p is below
// alpha keeps the expected share of false calls among the figures called
// at most alpha; when no figure changed (an A/A comparison) that is the
// chance of calling any, so that an A/A comparison of fifteen figures
// calls one in about twenty comparisons, not one figure in every one
// (Simes's test, for test statistics positively dependent, as a run's
// figures are). Chosen over Holm's family-wise adjustment because a real
// change moves many figures at once (CPU per token with evts/sec), and
// Holm's would leave them uncalled with few runs: with 5 a side the U
// test's least p-value, 0.008, times 14 is 0.11. NaN (no test) stays NaN
// and does not count among the m.
func Adjust(ps []float64) []float64 {
	idx := make([]int, 0, len(ps))
	for i, p := range ps {
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case ps[i] < ps[j]:
			return -1
		case ps[i] > ps[j]:
			return 1
		}
		return 0
	})
	out := make([]float64, len(ps))
	for i := range out {
		out[i] = math.NaN()
	}
	m := len(idx)
	next := 1.0
	for r := m - 1; r >= 0; r-- {
		i := idx[r]
		adj := math.Min(next, float64(m)/float64(r+1)*ps[i])
		out[i], next = adj, adj
	}
	return out
}
