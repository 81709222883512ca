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
		{"none", nil, 0.05, []string{"no intervals: nothing measured (docs/output.md#none)"}},
		{"one", []float64{42}, 0.05, []string{"one interval: no spread; lengthen -d (docs/output.md#few)"}},
		{"two", []float64{99, 101}, 0.05, []string{"2 intervals: rough spread; lengthen -d (docs/output.md#few)"}},
		{"noisy", []float64{93, 100, 107}, 0.05,
			[]string{"noisy: cv 7.0% (over 5%): quiet the machine (docs/output.md#noisy)"}},
		{"noisy fractional threshold", []float64{93, 100, 107}, 0.025,
			[]string{"noisy: cv 7.0% (over 2.5%): quiet the machine (docs/output.md#noisy)"}},
		{"few and noisy", []float64{95, 105}, 0.05, []string{
			"2 intervals: rough spread; lengthen -d (docs/output.md#few)",
			"noisy: cv 7.1% (over 5%): quiet the machine (docs/output.md#noisy)"}},
		{"skipped", []float64{1, math.NaN(), 1, 1}, 0.05, []string{"skipped 1 non-finite value (docs/output.md#skipped)"}},
		{"skipped two", []float64{1, math.Inf(-1), 1, math.NaN(), 1}, 0.05,
			[]string{"skipped 2 non-finite values (docs/output.md#skipped)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sampleWarnings(stats.Describe(tc.xs, tc.threshold), "interval"); !slices.Equal(got, tc.want) {
				t.Errorf("sampleWarnings = %q, want %q", got, tc.want)
			}
		})
	}
	if got, want := sampleWarnings(stats.Describe([]float64{99, 101}, 0.05), "run"), "2 runs: rough spread; raise -count (docs/output.md#few)"; len(got) != 1 || got[0] != want {
		t.Errorf("sampleWarnings(run) = %q, want %q", got, want)
	}
}

// TestWarningText: every kind of warning is worded, with its figures,
// names the remedy where the user has one, and ends with its section of
// WarningPage.
func TestWarningText(t *testing.T) {
	for _, tc := range []struct {
		w    summary.Warning
		want string
	}{
		{summary.Warning{Kind: summary.NoFullInterval}, "no full interval: lengthen -d (docs/output.md#none)"},
		{summary.Warning{Kind: summary.NoIntervalAfterWarmup, Count: 4, Warmup: 5}, "all 4 intervals were warm-up: lower -warmup (docs/output.md#none)"},
		{summary.Warning{Kind: summary.SpuriousReads, Count: 3}, "3 reads found pipes ready but empty (docs/output.md#spurious)"},
		{summary.Warning{Kind: summary.BusyRest, Who: "writer process", Value: 0.0404, Limit: 0.02}, "other threads: 4.04% of writer process CPU (docs/output.md#others)"},
		{summary.Warning{Kind: summary.LateInterval, Interval: 3, Late: 11*time.Millisecond + 400, Limit: 0.01}, "interval 3 counted 11ms late: a busy machine (docs/output.md#late)"},
		{summary.Warning{Kind: summary.ManyHalts, Value: 0.7, Limit: 0.5}, "idle entries/evt 0.7 > 0.5: pin with -cpu (docs/output.md#idle)"},
		{summary.Warning{Kind: summary.Sysmon}, "unpinned reader and writer: pin with -cpu (docs/output.md#unpinned)"},
		{summary.Warning{Kind: summary.ReadyClamped, Count: 1, Highest: 1000}, "ready/call: 1 call over 1000 (docs/output.md#clamped)"},
		{summary.Warning{Kind: summary.LatencyClamped, Count: 2, Highest: uint64(time.Second)}, "latency: 2 tokens over 1s (docs/output.md#clamped)"},
		{summary.Warning{Kind: summary.LatencyEarly, Count: 5}, "latency: 5 tokens read by their stamp (docs/output.md#early)"},
	} {
		if got := warningText(tc.w); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.w.Kind, got, tc.want)
		}
	}
}

// TestWarningsFit: every warning, with figures as wide as they come, is
// one line of at most WarningWidth columns, "warning: " included, and
// ends with a section of WarningPage that WarningAnchors lists.
func TestWarningsFit(t *testing.T) {
	var all []string
	for _, w := range []summary.Warning{
		{Kind: summary.NoFullInterval},
		{Kind: summary.NoIntervalAfterWarmup, Count: 1000, Warmup: 1000},
		{Kind: summary.SpuriousReads, Count: 123456789},
		{Kind: summary.BusyRest, Who: "writer process", Value: 0.999, Limit: summary.RestShare},
		{Kind: summary.LateInterval, Interval: 86400, Late: 59*time.Minute + 123456*time.Microsecond, Limit: summary.LateShare},
		{Kind: summary.ManyHalts, Value: 123.456, Limit: summary.HaltsAbove},
		{Kind: summary.Sysmon},
		{Kind: summary.ReadyClamped, Count: 123456789, Highest: 1000000},
		{Kind: summary.LatencyClamped, Count: 123456789, Highest: uint64(time.Hour + time.Minute)},
		{Kind: summary.LatencyEarly, Count: 123456789},
	} {
		all = append(all, warningText(w))
	}
	for _, unit := range []string{"interval", "run"} {
		all = append(all, sampleWarnings(stats.Sample{N: 2, Skipped: 1000, Noisy: true, CV: 12.345, CVThreshold: 0.025}, unit)...)
		all = append(all, sampleWarnings(stats.Sample{N: 1}, unit)...)
		all = append(all, sampleWarnings(stats.Sample{}, unit)...)
	}
	for _, w := range all {
		line := "warning: " + w
		if n := len([]rune(line)); n > WarningWidth {
			t.Errorf("%d columns, over %d: %s", n, WarningWidth, line)
		}
		i := strings.LastIndex(w, "("+WarningPage+"#")
		if i < 0 || !strings.HasSuffix(w, ")") || !slices.Contains(WarningAnchors, w[i+len(WarningPage)+2:len(w)-1]) {
			t.Errorf("no section of %s in WarningAnchors at its end: %s", WarningPage, w)
		}
	}
}
