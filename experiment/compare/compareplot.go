package compare

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/pipebench/pipebench/experiment/sweep/plot"
	"github.com/pipebench/pipebench/experiment/text"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// Figure draws sweep records side by side: evts/sec against
// pipes, a curve per side (labels[i] is record i's; or, with by, per value
// of that flag) and per
// backend and tokens in flight, each point the median of its repetitions
// with the 95% interval of the median as its bar (min to max where there
// are too few repetitions for one).
func Figure(records []*Loaded, labels []string, by string) plot.Figure {
	f := plot.Figure{Title: "pipebench compare: evts/sec against pipes, median and spread of the repetitions", XLabel: "pipes"}
	type curve struct {
		name string
		pts  map[float64][]float64
	}
	var curves []*curve
	index := map[string]*curve{}
	for i, l := range records {
		for _, s := range l.Configs {
			name := fmt.Sprintf("%s: %s -l %s", labels[i], s.Vars["b"], s.Vars["l"])
			if by != "" {
				name = fmt.Sprintf("-%s %s", by, s.Vars[by])
				for _, k := range []string{"b", "l", "writers", "readers"} {
					if v, ok := s.Vars[k]; ok && k != by {
						name += fmt.Sprintf(" -%s %s", k, v)
					}
				}
			}
			c := index[name]
			if c == nil {
				c = &curve{name: name, pts: map[float64][]float64{}}
				index[name] = c
				curves = append(curves, c)
			}
			n, _ := strconv.ParseFloat(s.Vars["n"], 64)
			c.pts[n] = append(c.pts[n], s.Values[mEvents.Name]...)
		}
	}
	for _, c := range curves {
		se := plot.Series{Name: c.name}
		var xs []float64
		for x := range c.pts {
			xs = append(xs, x)
		}
		sort.Float64s(xs)
		for _, x := range xs {
			s := cmpstat.Summarize(c.pts[x])
			lo, hi := s.Lo, s.Hi
			if !text.Finite(lo) || !text.Finite(hi) {
				lo, hi = s.Min, s.Max
			}
			se.X, se.Y = append(se.X, x), append(se.Y, s.Median)
			se.Lo, se.Hi = append(se.Lo, lo), append(se.Hi, hi)
		}
		f.Rates = append(f.Rates, se)
	}
	return f
}
