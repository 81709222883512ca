package stats

import (
	"math"
	"slices"
	"testing"
)

func TestWarnings(t *testing.T) {
	for _, tc := range []struct {
		name      string
		xs        []float64
		threshold float64
		want      []string
	}{
		{"quiet", []float64{100, 100, 100}, 0.05, nil},
		{"none", nil, 0.05, []string{"no intervals: nothing was measured"}},
		{"one", []float64{42}, 0.05, []string{"one interval: no spread and no confidence interval"}},
		{"two", []float64{99, 101}, 0.05, []string{"few intervals: n=2, the confidence interval is wide"}},
		{"noisy", []float64{93, 100, 107}, 0.05,
			[]string{"noisy: coefficient of variation 7.0% exceeds 5%"}},
		{"noisy fractional threshold", []float64{93, 100, 107}, 0.025,
			[]string{"noisy: coefficient of variation 7.0% exceeds 2.5%"}},
		{"few and noisy", []float64{95, 105}, 0.05, []string{
			"few intervals: n=2, the confidence interval is wide",
			"noisy: coefficient of variation 7.1% exceeds 5%"}},
		{"skipped", []float64{1, math.NaN(), 1, 1}, 0.05, []string{"skipped 1 non-finite value"}},
		{"skipped two", []float64{1, math.Inf(-1), 1, math.NaN(), 1}, 0.05,
			[]string{"skipped 2 non-finite values"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Describe(tc.xs, tc.threshold).Warnings("interval"); !slices.Equal(got, tc.want) {
				t.Errorf("Warnings() = %q, want %q", got, tc.want)
			}
		})
	}
	if got, want := Describe([]float64{99, 101}, 0.05).Warnings("run"), "few runs: n=2, the confidence interval is wide"; len(got) != 1 || got[0] != want {
		t.Errorf("Warnings(run) = %q, want %q", got, want)
	}
}
