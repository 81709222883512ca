package plot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Panel size: one panel, or two stacked when samples per call is shown.
const (
	width       = 8 * vg.Inch
	panelHeight = 5 * vg.Inch
)

// FormatOf returns the image format a file name asks for: "svg" or "png".
func FormatOf(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	}
	return "", fmt.Errorf("%q: want a file name ending in .svg or .png", path)
}

// Drawing is what Save and Write draw: a Figure (evts/sec against pipes)
// or a LoadFigure (latency and CPU against the offered load), as panels
// stacked.
type Drawing interface {
	panels() ([]*gplot.Plot, error)
}

// Save writes f to path in the format its extension names.
func Save(path string, f Drawing) error {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := Write(&b, format, f); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	return nil
}

// Write draws f as format ("svg" or "png") to w.
func Write(w io.Writer, format string, f Drawing) (err error) {
	panels, err := f.panels()
	if err != nil {
		return err
	}
	c, err := canvas(format, width, panelHeight*vg.Length(len(panels)))
	if err != nil {
		return err
	}
	// gonum panics on some degenerate inputs; panels() rules out the ones we
	// know, and this keeps any other from taking a finished sweep down.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("draw plot: %v", r)
		}
	}()
	// Panels are stacked as they are, not aligned: gonum's Align evens out
	// the space above each data area, which leaves a gap under a two-line
	// title.
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12), PadY: vg.Points(18)}
	dc := draw.New(c)
	for i, p := range panels {
		p.Draw(tiles.At(dc, 0, i))
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	return nil
}

// pngDPI makes a PNG sharp enough for a README (gonum's default is 96).
const pngDPI = 150

func canvas(format string, w, h vg.Length) (vg.CanvasWriterTo, error) {
	if format == "png" {
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))}, nil
	}
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, fmt.Errorf("plot format: %w", err)
	}
	return c, nil
}

// panels builds the rates panel and, when f has samples, the samples panel.
func (f Figure) panels() ([]*gplot.Plot, error) {
	ours, refs := f.Rates, f.Reference
	ylabel := "evts/sec"
	title := f.Title
	if len(refs) > 0 {
		ours, refs = mapSeries(ours, Normalise), mapSeries(refs, Normalise)
		ylabel = "evts/sec ÷ curve's first point"
		title += ", each curve divided by its first point"
	} else {
		ours = mapSeries(ours, drawable)
	}
	if points(ours) == 0 {
		return nil, errors.New("nothing to plot: no point was measured")
	}
	st := newStyler()
	var marks []Mark
	if len(refs) == 0 {
		marks = f.Crossings
	}
	rates, err := panel(panelSpec{title: title, xlabel: f.XLabel, ylabel: ylabel, ours: ours, refs: refs, marks: marks, markName: crossingName(marks)}, st)
	if err != nil {
		return nil, err
	}
	rates.Legend.Top, rates.Legend.Left = false, true
	out := []*gplot.Plot{rates}
	if samples := mapSeries(f.Samples, drawable); points(samples) > 0 {
		sp, err := panel(panelSpec{title: "samples per call (ready pipes per readiness call)", xlabel: f.XLabel, ylabel: "samples per call", ours: samples}, newStyler())
		if err != nil {
			return nil, err
		}
		sp.Legend.Top, sp.Legend.Left = true, true
		out = append(out, sp)
	}
	return out, nil
}

func mapSeries(ss []Series, fn func(Series) Series) []Series {
	out := make([]Series, 0, len(ss))
	for _, s := range ss {
		out = append(out, fn(s))
	}
	return out
}

func points(ss []Series) int {
	n := 0
	for _, s := range ss {
		n += len(s.X)
	}
	return n
}

// panelSpec is what one panel shows: its words (no y label when ylabel is
// empty: the title then says what y is), our curves (solid) and reference
// ones (dashed), vertical marks (named in the legend by markName), and
// whether its x axis is linear (log-log otherwise).
type panelSpec struct {
	title, xlabel, ylabel string
	ours, refs            []Series
	marks                 []Mark
	markName              string
	linearX               bool
}

// panel draws sp's ours as solid lines with points and its refs as dashed
// lines, on axes that fit every point and mark (y logarithmic; x too
// unless linearX), and its marks (their intervals under the curves, their
// lines and labels over them).
func panel(sp panelSpec, st *styler) (*gplot.Plot, error) {
	title, xlabel, ylabel, ours, refs, marks := sp.title, sp.xlabel, sp.ylabel, sp.ours, sp.refs, sp.marks
	p := gplot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xlabel + " (log)"
	if ylabel != "" {
		p.Y.Label.Text = ylabel + " (log)"
	}
	p.X.Scale, p.Y.Scale = gplot.LogScale{}, gplot.LogScale{}
	// gonum sizes a centred y label at the arithmetic middle of the axis
	// range, which a log axis puts near its top, and then shrinks the
	// plot to make room; a label at the top is sized right.
	p.Y.Label.Position = draw.PosTop
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	if sp.linearX {
		p.X.Label.Text, p.X.Scale, p.X.Tick.Marker = xlabel, gplot.LinearScale{}, shortTicks{}
	}
	p.Add(plotter.NewGrid())
	if len(marks) > 0 {
		p.Add(bands(marks))
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	add := func(s Series, ref bool) error {
		if len(s.X) == 0 {
			return nil
		}
		xys := make(plotter.XYs, len(s.X))
		for i := range s.X {
			xys[i] = plotter.XY{X: s.X[i], Y: s.Y[i]}
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
			ymin, ymax = math.Min(ymin, s.Y[i]), math.Max(ymax, s.Y[i])
		}
		line, dots, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("plot %s: %w", s.Name, err)
		}
		st.styleSeries(s, ref, line, dots)
		p.Add(line, dots)
		p.Legend.Add(s.Name, line, dots)
		if len(s.Lo) == len(s.X) && len(s.Hi) == len(s.X) {
			bars, err := plotter.NewYErrorBars(spread{s})
			if err != nil {
				return fmt.Errorf("plot %s: %w", s.Name, err)
			}
			bars.LineStyle.Color = line.LineStyle.Color
			p.Add(bars)
			for i := range s.X {
				ymin, ymax = math.Min(ymin, s.Lo[i]), math.Max(ymax, s.Hi[i])
			}
		}
		return nil
	}
	for _, s := range ours {
		if err := add(s, false); err != nil {
			return nil, err
		}
	}
	for _, s := range refs {
		if err := add(s, true); err != nil {
			return nil, err
		}
	}
	// A little room around the data and the marks, so that no point sits
	// on an axis.
	for _, m := range marks {
		xmin, xmax = math.Min(xmin, m.X), math.Max(xmax, m.X)
	}
	p.X.Min, p.X.Max = xmin/1.4, xmax*1.4
	if sp.linearX {
		p.X.Min, p.X.Max = 0, xmax*1.05
	}
	p.Y.Min, p.Y.Max = ymin/1.6, ymax*1.6
	if err := addMarks(p, marks, sp.markName); err != nil {
		return nil, err
	}
	return p, nil
}

// spread is a series' points with their error bars, for gonum.
type spread struct{ s Series }

func (e spread) Len() int                        { return len(e.s.X) }
func (e spread) XY(i int) (float64, float64)     { return e.s.X[i], e.s.Y[i] }
func (e spread) YError(i int) (float64, float64) { return e.s.Y[i] - e.s.Lo[i], e.s.Hi[i] - e.s.Y[i] }
