package timeout

import (
	"math"
	"time"

	"github.com/pipebench/pipebench/stats"
)

// MedianPoints are the points of several repetitions of the same
// measurement taken together: each figure (minimum, quantiles, maximum,
// mean) the median (stats.MedianOf) of that point's figures in the repetitions that took
// samples of it; Samples and Interrupted are the repetitions' sums. One
// repetition gives its own points back, samples included.
func MedianPoints(reps []Repetition) []Point {
	if len(reps) == 1 {
		return reps[0].Points
	}
	if len(reps) == 0 {
		return nil
	}
	out := make([]Point, len(reps[0].Points))
	for i := range out {
		var pts []Point
		for _, r := range reps {
			if i < len(r.Points) {
				out[i].Interrupted += r.Points[i].Interrupted
				if r.Points[i].Samples > 0 {
					pts = append(pts, r.Points[i])
				}
			}
		}
		out[i].Mechanism, out[i].Requested = reps[0].Points[i].Mechanism, reps[0].Points[i].Requested
		if len(pts) == 0 {
			continue
		}
		med := func(v func(p *Point) time.Duration) time.Duration {
			return time.Duration(math.Round(stats.MedianOf(pts, func(p *Point) float64 { return float64(v(p)) })))
		}
		for _, p := range pts {
			out[i].Samples += p.Samples
		}
		out[i].Min = med(func(p *Point) time.Duration { return p.Min })
		out[i].P50 = med(func(p *Point) time.Duration { return p.P50 })
		out[i].P99 = med(func(p *Point) time.Duration { return p.P99 })
		out[i].Max = med(func(p *Point) time.Duration { return p.Max })
		out[i].Mean = med(func(p *Point) time.Duration { return p.Mean })
	}
	return out
}
