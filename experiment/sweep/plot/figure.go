package plot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/stats"
)

// Series is one curve: Y against X. Points where either is not positive
// cannot sit on a log axis and are left out when drawn.
type Series struct {
	Name string
	X, Y []float64
	// Lo and Hi, when set, are each point's spread (an interval around
	// Y), drawn as error bars.
	Lo, Hi []float64
	// Group, when set, names the curves drawn in one colour (a backend's
	// latency quantiles); Variant picks each one's dash (0: solid).
	Group   string
	Variant int
}

// Figure is what a scaling plot shows.
type Figure struct {
	Title  string
	XLabel string
	// Rates are evts/sec curves, one per backend (and tokens in flight).
	Rates []Series
	// Reference curves, drawn dashed; when there are any, every curve of
	// the rates panel is divided by its own first point.
	Reference []Series
	// Samples, when not empty, fills a second panel: samples per call.
	Samples []Series
	// Crossings are where the rates curves cross, marked on their panel;
	// left off when Reference divides every curve by its first point (the
	// curves drawn then do not cross where the evts/sec do).
	Crossings []Mark
}

// FromSweep builds the figure of a sweep: one curve per backend (per
// backend and tokens in flight when several were swept), samples per call
// when it varies, where the curves cross, and ref's series if ref is not
// nil.
func FromSweep(r *sweep.Result, ref *sweep.Ref) Figure {
	s := r.Settings
	how := fmt.Sprintf("writer %s, -d %s", s.Writer, s.Duration)
	if len(r.Grid.InFlight) == 1 {
		how = fmt.Sprintf("-l %d, %s", r.Grid.InFlight[0], how)
	}
	f := Figure{Title: "pipebench sweep (" + how + "): evts/sec against pipes", XLabel: "pipes"}
	vary := sweep.SamplesVary(r.Points)
	for _, l := range r.Grid.InFlight {
		for _, b := range r.Grid.Backends {
			name := b
			if len(r.Grid.InFlight) > 1 {
				name = fmt.Sprintf("%s -l %d", b, l)
			}
			rate, samples := Series{Name: name}, Series{Name: name}
			// With several rounds a point has a run per round: the curve
			// goes through their median, with a bar from the least to the
			// most.
			var pipes []int
			rates, samp := map[int][]float64{}, map[int][]float64{}
			for _, p := range r.Points {
				if p.Backend != b || p.InFlight != l {
					continue
				}
				if _, ok := rates[p.Pipes]; !ok {
					pipes = append(pipes, p.Pipes)
				}
				rates[p.Pipes] = append(rates[p.Pipes], p.EventsPerSec)
				if p.SamplesApply {
					samp[p.Pipes] = append(samp[p.Pipes], p.SamplesPerCall)
				}
			}
			slices.Sort(pipes)
			for _, n := range pipes {
				xs := rates[n]
				rate.X, rate.Y = append(rate.X, float64(n)), append(rate.Y, stats.Describe(xs, 0).Median)
				if r.Rounds > 1 {
					rate.Lo, rate.Hi = append(rate.Lo, slices.Min(xs)), append(rate.Hi, slices.Max(xs))
				}
				if ys := samp[n]; len(ys) > 0 {
					samples.X, samples.Y = append(samples.X, float64(n)), append(samples.Y, stats.Describe(ys, 0).Median)
				}
			}
			if len(rate.X) > 0 {
				f.Rates = append(f.Rates, rate)
			}
			if vary && len(samples.X) > 0 {
				f.Samples = append(f.Samples, samples)
			}
		}
	}
	f.Crossings = marksOf(r)
	if ref != nil {
		for _, rs := range ref.Series {
			name := ref.Label + ": " + rs.Name
			if !strings.EqualFold(ref.XName, "pipes") {
				name += " (x = " + ref.XName + ")"
			}
			f.Reference = append(f.Reference, Series{Name: name, X: rs.X, Y: rs.Y})
		}
	}
	return f
}

// drawable keeps the points of s that a log-log plot can show.
func drawable(s Series) Series {
	d := Series{Name: s.Name, Group: s.Group, Variant: s.Variant}
	spread := len(s.Lo) == len(s.Y) && len(s.Hi) == len(s.Y)
	for i := range min(len(s.X), len(s.Y)) {
		if s.X[i] > 0 && s.Y[i] > 0 {
			d.X, d.Y = append(d.X, s.X[i]), append(d.Y, s.Y[i])
			if spread {
				// A bound at or below zero cannot sit on a log axis: the
				// bar stops at the point.
				lo, hi := s.Lo[i], s.Hi[i]
				if lo <= 0 || lo > s.Y[i] {
					lo = s.Y[i]
				}
				d.Lo, d.Hi = append(d.Lo, lo), append(d.Hi, max(hi, s.Y[i]))
			}
		}
	}
	return d
}

// Normalise divides s by its first drawable point and says by what, in
// the series' name, so that the absolute figure can still be read.
func Normalise(s Series) Series {
	d := drawable(s)
	if len(d.Y) == 0 {
		return d
	}
	first := d.Y[0]
	n := Series{Name: fmt.Sprintf("%s (÷ %s at %s)", d.Name, short(first), short(d.X[0])), X: d.X, Y: make([]float64, len(d.Y))}
	for i, y := range d.Y {
		n.Y[i] = y / first
	}
	return n
}

// short prints a number in three significant figures with k or M.
func short(v float64) string {
	v, unit := inUnit(v)
	return fmt.Sprintf("%.3g", v) + unit
}

// inUnit is v in millions (M) or thousands (k) when it is that large;
// the thresholds sit where three significant figures would round up to
// the next unit.
func inUnit(v float64) (float64, string) {
	switch {
	case v >= 999.5e3:
		return v / 1e6, "M"
	case v >= 999.5:
		return v / 1e3, "k"
	}
	return v, ""
}
