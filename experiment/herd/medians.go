package herd

import (
	"math"

	"github.com/pipebench/pipebench/stats"
)

// MedianFigures are the figures of one setting measured several times:
// each the median of the repetitions' figures. Its EventsPerSec summarizes
// the repetitions' medians (its spread is theirs, not that of one run's
// intervals); MinTokens and MaxTokens are the medians of each repetition's
// least and most, rounded. No repetitions give zero figures.
func MedianFigures(reps []Figures) Figures {
	if len(reps) == 0 {
		return Figures{}
	}
	med := func(v func(f *Figures) float64) float64 {
		xs := make([]float64, len(reps))
		for i := range reps {
			xs[i] = v(&reps[i])
		}
		return stats.Describe(xs, 0.05).Median
	}
	evts := make([]float64, len(reps))
	for i := range reps {
		evts[i] = reps[i].EventsPerSec.Median
	}
	return Figures{
		EventsPerSec:          stats.Describe(evts, 0.05),
		TokensPerSec:          med(func(f *Figures) float64 { return f.TokensPerSec }),
		WakeupsPerToken:       med(func(f *Figures) float64 { return f.WakeupsPerToken }),
		ReturnsPerToken:       med(func(f *Figures) float64 { return f.ReturnsPerToken }),
		WastedReturnsPerToken: med(func(f *Figures) float64 { return f.WastedReturnsPerToken }),
		WastedReturnShare:     med(func(f *Figures) float64 { return f.WastedReturnShare }),
		WastedReadsPerToken:   med(func(f *Figures) float64 { return f.WastedReadsPerToken }),
		WaiterSystem:          med(func(f *Figures) float64 { return f.WaiterSystem }),
		SystemPerToken:        med(func(f *Figures) float64 { return f.SystemPerToken }),
		UserPerToken:          med(func(f *Figures) float64 { return f.UserPerToken }),
		WriterSystemPerToken:  med(func(f *Figures) float64 { return f.WriterSystemPerToken }),
		MinTokens:             uint64(math.Round(med(func(f *Figures) float64 { return float64(f.MinTokens) }))),
		MaxTokens:             uint64(math.Round(med(func(f *Figures) float64 { return float64(f.MaxTokens) }))),
	}
}
