package stats

import (
	"math"
	"slices"
)

// Median is the median of the finite values of xs: the middle one, or for
// an even count the mean of the two middle ones; 0 when there are none.
// It is the figure of an experiment repeated in rounds (-count): each
// figure the median of its repetitions'.
func Median(xs []float64) float64 {
	sorted := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			sorted = append(sorted, x)
		}
	}
	if len(sorted) == 0 {
		return 0
	}
	slices.Sort(sorted)
	return median(sorted)
}

// MedianOf is the median (Median) of one figure of several repetitions:
// figure(&reps[i]) for each. It is how herd, timeout, sweep and seeds take
// a figure across their rounds.
func MedianOf[T any](reps []T, figure func(*T) float64) float64 {
	xs := make([]float64, len(reps))
	for i := range reps {
		xs[i] = figure(&reps[i])
	}
	return Median(xs)
}
