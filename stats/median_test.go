package stats

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{math.NaN(), 5, math.Inf(1), 1, 3}, 3},
		{[]float64{math.MaxFloat64, math.MaxFloat64}, math.MaxFloat64},
	} {
		if got := Median(tc.xs); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
		if d := Describe(tc.xs, 0); d.Median != Median(tc.xs) {
			t.Errorf("Describe(%v).Median = %v, Median %v", tc.xs, d.Median, Median(tc.xs))
		}
	}
}

func TestMedianOf(t *testing.T) {
	type rep struct{ a, b float64 }
	reps := []rep{{1, 10}, {5, 30}, {3, 20}, {4, 40}}
	if got := MedianOf(reps, func(r *rep) float64 { return r.a }); got != 3.5 {
		t.Errorf("median of a: %v, want 3.5", got)
	}
	if got := MedianOf(reps, func(r *rep) float64 { return r.b }); got != 25 {
		t.Errorf("median of b: %v, want 25", got)
	}
	if got := MedianOf([]rep(nil), func(r *rep) float64 { return r.a }); got != 0 {
		t.Errorf("median of no repetition: %v, want 0", got)
	}
}
