package plot

import (
	"errors"
	"fmt"

	gplot "gonum.org/v1/plot"

	"github.com/pipebench/pipebench/experiment/sweep"
)

// LoadFigure is what the plot of an open-loop sweep (-rate) shows, against
// the offered load (tokens/s, a linear axis, so that the knee stands out):
// latency and CPU per event, a curve per backend (and setting of pipes,
// writers and readers when several were swept), and where each curve
// saturates.
type LoadFigure struct {
	Title string
	// Latency holds each curve's p50, p99 and p99.9 from the scheduled
	// send (µs), a curve's three in one colour (Series.Group); empty
	// without -latency.
	Latency []Series
	// CPU holds each curve's CPU per event of the run's processes (µs).
	CPU []Series
	// Saturation marks where each curve saturates: its measured
	// saturation (rates given as shares of it), or else the first rate
	// past saturation, dotted. Marks near each other share one label
	// (saturationMarks).
	Saturation []Mark
}

// quantiles are the latency curves drawn: name and figure.
var quantiles = []struct {
	name string
	of   func(*sweep.LoadLatency) float64
}{
	{"p50", func(l *sweep.LoadLatency) float64 { return l.P50 }},
	{"p99", func(l *sweep.LoadLatency) float64 { return l.P99 }},
	{"p99.9", func(l *sweep.LoadLatency) float64 { return l.P999 }},
}

// FromLoad builds the figure of an open-loop sweep from its load table
// (sweep.LoadTable: each figure the median of the point's runs).
func FromLoad(r *sweep.Result) LoadFigure {
	s := r.Settings
	f := LoadFigure{Title: fmt.Sprintf("pipebench sweep -rate (writer %s, -d %s): latency and CPU per event against offered load", s.Writer, s.Duration)}
	var names []string
	lat, cpu := map[string][]Series{}, map[string]*Series{}
	past := map[string]float64{} // the first offered load past saturation
	marked := map[string]bool{}
	var sats []saturation
	xmax := 0.0 // the largest offered load or saturation
	for _, row := range sweep.LoadTable(r) {
		name := curveName(r.Grid, row.Key)
		if _, ok := cpu[name]; !ok {
			names = append(names, name)
			cpu[name] = &Series{Name: name + " cpu/evt", Group: name}
			for i, q := range quantiles {
				lat[name] = append(lat[name], Series{Name: name + " " + q.name, Group: name, Variant: i})
			}
		}
		x := row.Offered
		xmax = max(xmax, x, row.Saturation)
		c := cpu[name]
		c.X, c.Y = append(c.X, x), append(c.Y, row.CPUPerEvent/1e3)
		if row.Latency != nil {
			for i, q := range quantiles {
				l := &lat[name][i]
				l.X, l.Y = append(l.X, x), append(l.Y, q.of(row.Latency)/1e3)
			}
		}
		if _, ok := past[name]; !ok && row.Saturated > 0 {
			past[name] = x
		}
		if sat := row.Saturation; sat > 0 && !marked[name] {
			marked[name] = true
			sats = append(sats, saturation{name: name, x: sat, measured: true})
		}
	}
	for _, name := range names {
		if x, ok := past[name]; ok && !marked[name] {
			sats = append(sats, saturation{name: name, x: x})
		}
		for _, l := range lat[name] {
			if len(l.X) > 0 {
				f.Latency = append(f.Latency, l)
			}
		}
		f.CPU = append(f.CPU, *cpu[name])
	}
	f.Saturation = saturationMarks(sats, xmax)
	return f
}

// curveName names the curve of point k: its backend, and the settings of
// pipes, writers and readers the grid crossed.
func curveName(g sweep.Grid, k sweep.Key) string {
	s := k.Backend
	if len(g.Pipes) > 1 {
		s += fmt.Sprintf(" -n %d", k.Pipes)
	}
	if len(g.Writers) > 1 {
		s += fmt.Sprintf(" -writers %d", k.Writers)
	}
	if len(g.Readers) > 1 {
		s += fmt.Sprintf(" -readers %d", k.Readers)
	}
	return s
}

// satName names the saturation marks in the legend.
const satName = "saturation (dotted: the first rate past it)"

// panels builds the latency panel, when there is latency, and the CPU
// panel, both marked where each curve saturates.
func (f LoadFigure) panels() ([]*gplot.Plot, error) {
	lat, cpu := mapSeries(f.Latency, drawable), mapSeries(f.CPU, drawable)
	if points(lat)+points(cpu) == 0 {
		return nil, errors.New("nothing to plot: no point was measured")
	}
	// The panels' titles say what y is: gonum places a y label on a log
	// axis by a length taken for a value of the data (axis.go's FIXME),
	// which leaves a gap above the panel wherever that lies in its range.
	const x = "offered load (tokens/s)"
	var out []*gplot.Plot
	if points(lat) > 0 {
		p, err := panel(panelSpec{title: f.Title + "\nlatency (µs, log): p50, p99 and p99.9 from each token's scheduled send to its read",
			xlabel: x, ours: lat, marks: f.Saturation, markName: satName, linearX: true}, newStyler())
		if err != nil {
			return nil, err
		}
		// Latency rises with the load, the most at saturation, where the
		// marks' labels stand at the panel's top: its top left is free.
		p.Legend.Top, p.Legend.Left = true, true
		out = append(out, p)
	}
	title := "CPU per event of the run's processes (µs, log)"
	if len(out) == 0 {
		title = f.Title + "\n" + title
	}
	p, err := panel(panelSpec{title: title, xlabel: x, ours: cpu,
		marks: f.Saturation, markName: satName, linearX: true}, newStyler())
	if err != nil {
		return nil, err
	}
	// CPU per event is highest at the lightest loads, where each event
	// wakes a thread: the foot of the panel's left side is free.
	p.Legend.Top, p.Legend.Left = false, true
	return append(out, p), nil
}
