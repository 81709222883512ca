package report

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench/summary"
	"github.com/pipebench/pipebench/stats"
)

func TestSampleWarnings(t *testing.T) {
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
			if got := sampleWarnings(stats.Describe(tc.xs, tc.threshold), "interval"); !slices.Equal(got, tc.want) {
				t.Errorf("sampleWarnings = %q, want %q", got, tc.want)
			}
		})
	}
	if got, want := sampleWarnings(stats.Describe([]float64{99, 101}, 0.05), "run"), "few runs: n=2, the confidence interval is wide"; len(got) != 1 || got[0] != want {
		t.Errorf("sampleWarnings(run) = %q, want %q", got, want)
	}
}

// TestWarningText: every kind of warning is worded, with its figures, and
// names the flag that answers it where one does.
func TestWarningText(t *testing.T) {
	for _, tc := range []struct {
		w    summary.Warning
		want string
	}{
		{summary.Warning{Kind: summary.NoFullInterval}, "no full interval: the run ended before the first interval"},
		{summary.Warning{Kind: summary.NoIntervalAfterWarmup, Count: 4, Warmup: 5}, "no interval after warm-up: the run ended after 4 intervals, all warm-up (-warmup 5)"},
		{summary.Warning{Kind: summary.SpuriousReads, Count: 3}, "the backend reported pipes ready that had nothing to read"},
		{summary.Warning{Kind: summary.BusyRest, Who: "writer process", Value: 0.0404, Limit: 0.02}, "writer process: threads other than the reader and writer used 4.0% of its CPU (more than 2%)"},
		{summary.Warning{Kind: summary.LateInterval, Interval: 3, Late: 11*time.Millisecond + 400, Limit: 0.01}, "interval 3 was counted 11ms after its boundary (more than 1% of an interval)"},
		{summary.Warning{Kind: summary.ManyHalts, Value: 0.7, Limit: 0.5}, "halts/evt 0.7 (above 0.5): the run's speed is set by waking halted CPUs"},
		{summary.Warning{Kind: summary.ManyHalts, Value: 0.7, Limit: 0.5}, "-cpu pins them, taskset confines them"},
		{summary.Warning{Kind: summary.Sysmon}, "(the yardstick's -tick 10ms), or pin them with -cpu"},
		{summary.Warning{Kind: summary.ReadyClamped, Count: 1, Highest: 1000}, "ready/call: 1 call above 1000 ready, counted as 1000"},
		{summary.Warning{Kind: summary.LatencyClamped, Count: 2, Highest: uint64(time.Second)}, "latency: 2 tokens waited longer than 1s, counted as 1s in the quantiles"},
		{summary.Warning{Kind: summary.LatencyEarly, Count: 5}, "latency: 5 tokens read at or before the time stamped on them, counted as 0ns"},
	} {
		if got := warningText(tc.w); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to hold %q", tc.w.Kind, got, tc.want)
		}
	}
}
