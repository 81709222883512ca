package herd

import (
	"math"

	"github.com/pipebench/pipebench/stats"
)

// MedianFigures are the figures of one setting measured several times:
// each the median of the repetitions' figures (stats.MedianOf). Its
// EventsPerSec summarizes the repetitions' medians (its spread is theirs,
// not that of one run's intervals); MinTokens and MaxTokens are the
// medians of each repetition's least and most, rounded. No repetitions
// give zero figures.
func MedianFigures(reps []Figures) Figures {
	if len(reps) == 0 {
		return Figures{}
	}
	med := func(v func(f *Figures) float64) float64 { return stats.MedianOf(reps, v) }
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

// medians groups the repetitions by setting, in the order the settings
// first ran, and takes each setting's medians.
func medians(reps []Side) []Median {
	var order []bool
	all, measured := map[bool][]Figures{}, map[bool][]Figures{}
	for i := range reps {
		ex := reps[i].Setup.Exclusive
		if _, seen := all[ex]; !seen {
			order = append(order, ex)
		}
		all[ex] = append(all[ex], reps[i].Figures)
		if !reps[i].Interrupted {
			measured[ex] = append(measured[ex], reps[i].Figures)
		}
	}
	var ms []Median
	for _, ex := range order {
		fs := measured[ex]
		if len(fs) == 0 {
			fs = all[ex]
		}
		ms = append(ms, Median{Exclusive: ex, Runs: len(fs), Figures: MedianFigures(fs)})
	}
	return ms
}
