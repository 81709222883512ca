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
// figures tested at once (Holm), keeping its change and floor; too few
// stays too few.
func (c *Change) Rejudge(p float64, dir Direction) {
	if c.Verdict == TooFew {
		return
	}
	c.Adjusted = p
	c.Verdict = judge(p, c.Ratio, c.Floor, dir, false)
}

// Holm is Holm's step-down adjustment of the p-values ps (S. Holm, "A
// simple sequentially rejective multiple test procedure", Scandinavian
// Journal of Statistics 6, 1979): sorted ascending, the i-th smallest (from
// 0) is multiplied by m-i, kept at least as large as the one before it and
// at most 1. Rejecting where the adjusted p is below alpha keeps the
// chance of any false rejection among the m at most alpha, whatever their
// dependence: an A/A comparison of fifteen figures flags one in about
// twenty comparisons, not one figure in every one. NaN (no test) stays NaN
// and does not count among the m.
func Holm(ps []float64) []float64 {
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
	prev := 0.0
	for r, i := range idx {
		adj := math.Min(1, math.Max(prev, float64(m-r)*ps[i]))
		out[i], prev = adj, adj
	}
	return out
}
