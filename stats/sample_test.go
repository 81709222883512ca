package stats

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// near reports whether got is within tol of want.
func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// same reports whether a and b hold the same bits, NaN included.
func same(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// Critical values from a printed t table (two-sided 95%).
func TestTCritical(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want float64
	}{
		{2, 12.7062},
		{3, 4.3027},
		{5, 2.7764},
		{8, 2.3646},
		{10, 2.2622},
		{30, 2.0452},
		{1001, 1.9623},
	} {
		if got := tCritical(tc.n); !near(got, tc.want, 1e-4) {
			t.Errorf("tCritical(%d) = %.6f, want %.4f", tc.n, got, tc.want)
		}
	}
}

// The expectations are worked by hand: sample standard deviation with
// divisor n-1, half-width t * sd / sqrt(n).
func TestDescribe(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name string
		xs   []float64
		want Sample
	}{
		{"nil", nil, Sample{}},
		{"empty", []float64{}, Sample{}},
		{"one", []float64{42},
			Sample{N: 1, Median: 42, Mean: 42, Min: 42, Max: 42, CILow: 42, CIHigh: 42}},
		// mean 11, sd sqrt(2), se 1, t(1) 12.706205
		{"two", []float64{12, 10},
			Sample{N: 2, Median: 11, Mean: 11, StdDev: 1.414214, Min: 10, Max: 12,
				CILow: -1.706205, CIHigh: 23.706205, CV: 0.128565, Noisy: true}},
		// mean 3, var 10/4, sd 1.581139, se 0.707107, t(4) 2.776445
		{"odd", []float64{5, 1, 4, 2, 3},
			Sample{N: 5, Median: 3, Mean: 3, StdDev: 1.581139, Min: 1, Max: 5,
				CILow: 1.036757, CIHigh: 4.963243, CV: 0.527046, Noisy: true}},
		// median (4+5)/2; mean 5, var 32/7, sd 2.138090, se sqrt(4/7) 0.755929, t(7) 2.364624
		{"even", []float64{9, 2, 4, 4, 5, 4, 7, 5},
			Sample{N: 8, Median: 4.5, Mean: 5, StdDev: 2.138090, Min: 2, Max: 9,
				CILow: 3.212512, CIHigh: 6.787488, CV: 0.427618, Noisy: true}},
		{"even four", []float64{4, 1, 3, 2},
			Sample{N: 4, Median: 2.5, Mean: 2.5, StdDev: 1.290994, Min: 1, Max: 4,
				// se 0.645497, t(3) 3.182446
				CILow: 0.445747, CIHigh: 4.554253, CV: 0.516398, Noisy: true}},
		{"constant", []float64{100, 100, 100},
			Sample{N: 3, Median: 100, Mean: 100, Min: 100, Max: 100, CILow: 100, CIHigh: 100}},
		// mean 100, sd 7, CV 0.07
		{"rates", []float64{100e3, 107e3, 93e3},
			Sample{N: 3, Median: 100e3, Mean: 100e3, StdDev: 7e3, Min: 93e3, Max: 107e3,
				// se 7e3/sqrt(3) 4041.452, t(2) 4.302653
				CILow: 82611.05, CIHigh: 117388.95, CV: 0.07, Noisy: true}},
		// zero mean: CV would be infinite; reported as 0
		{"zero mean", []float64{-1, 1},
			Sample{N: 2, Median: 0, Mean: 0, StdDev: 1.414214, Min: -1, Max: 1,
				CILow: -12.706205, CIHigh: 12.706205}},
		{"non-finite skipped", []float64{1, nan, 3, inf, -inf},
			Sample{N: 2, Median: 2, Mean: 2, StdDev: 1.414214, Min: 1, Max: 3,
				CILow: -10.706205, CIHigh: 14.706205, CV: 0.707107, Noisy: true, Skipped: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.CVThreshold = 0.05
			in := slices.Clone(tc.xs)
			got := Describe(in, 0.05)
			if !same(in, tc.xs) {
				t.Errorf("Describe modified its input: %v, was %v", in, tc.xs)
			}
			tol := 1e-5 * max(1, math.Abs(tc.want.Mean))
			if got.N != tc.want.N || got.Skipped != tc.want.Skipped ||
				got.Noisy != tc.want.Noisy || got.CVThreshold != tc.want.CVThreshold ||
				!near(got.Median, tc.want.Median, tol) || !near(got.Mean, tc.want.Mean, tol) ||
				!near(got.StdDev, tc.want.StdDev, tol) ||
				!near(got.Min, tc.want.Min, 0) || !near(got.Max, tc.want.Max, 0) ||
				!near(got.CILow, tc.want.CILow, tol) || !near(got.CIHigh, tc.want.CIHigh, tol) ||
				!near(got.CV, tc.want.CV, 1e-6) {
				t.Errorf("Describe(%v) =\n%+v, want\n%+v", tc.xs, got, tc.want)
			}
		})
	}
}

// {93, 100, 107} has CV exactly 7/100.
func TestDescribeNoisyThreshold(t *testing.T) {
	xs := []float64{93, 100, 107}
	for _, tc := range []struct {
		threshold float64
		noisy     bool
	}{
		{0, true},
		{0.05, true},
		{0.0699, true},
		{0.0701, false},
		{0.10, false},
	} {
		if got := Describe(xs, tc.threshold); got.Noisy != tc.noisy {
			t.Errorf("threshold %g: Noisy = %v (CV %g), want %v", tc.threshold, got.Noisy, got.CV, tc.noisy)
		}
	}
}

// Every Sample must survive JSON, which has no NaN or infinity, under
// snake_case names.
func TestSampleJSON(t *testing.T) {
	for _, xs := range [][]float64{nil, {7}, {1, 2}, {0, 0}, {-1, 1}, {math.NaN()}} {
		b, err := json.Marshal(Describe(xs, 0.05))
		if err != nil {
			t.Fatalf("Describe(%v): json: %v", xs, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"n", "median", "mean", "std_dev", "min", "max",
			"ci_low", "ci_high", "cv", "noisy", "cv_threshold"} {
			if _, ok := m[k]; !ok {
				t.Errorf("Describe(%v): JSON %s lacks %q", xs, b, k)
			}
		}
	}
}
