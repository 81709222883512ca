package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pipebench/pipebench/experiment/sweep"
)

// Mark is a crossing drawn on the rates panel: a vertical line at X, the
// crossing's interval Lo..Hi shaded behind it when Interval is set, and a
// label along the line.
type Mark struct {
	X        float64
	Lo, Hi   float64
	Interval bool
	// Resolved draws the line solid; a crossing not resolved (or without
	// repetitions to tell) is dotted.
	Resolved bool
	// Label is drawn along the line; none when empty (a mark whose label
	// another names).
	Label string
}

// marksOf are the crossings of r as marks: "epoll > poll at 11".
func marksOf(r *sweep.Result) []Mark {
	if r.Crossings == nil {
		return nil
	}
	several := len(r.Grid.InFlight) > 1
	name := func(c sweep.Curve) string {
		s := c.Backend
		if several {
			s += fmt.Sprintf(" -l %d", c.InFlight)
		}
		if c.Writers > 0 && len(r.Grid.Writers) > 1 {
			s += fmt.Sprintf(" -writers %d", c.Writers)
		}
		if c.Readers > 0 && len(r.Grid.Readers) > 1 {
			s += fmt.Sprintf(" -readers %d", c.Readers)
		}
		return s
	}
	var ms []Mark
	for _, p := range r.Crossings.Pairs {
		for _, c := range p.Crossings {
			label := fmt.Sprintf("%s > %s at %s", name(c.Over), name(c.Under), short(c.At))
			if c.Interval {
				label += fmt.Sprintf(" (%s-%s)", short(c.Lo), short(c.Hi))
			} else if c.Before.N >= 2 && c.After.N >= 2 {
				label += " (not resolved)"
			}
			ms = append(ms, Mark{X: c.At, Lo: c.Lo, Hi: c.Hi, Interval: c.Interval, Resolved: c.Resolved, Label: label})
		}
	}
	return ms
}

// markColor is the colour of every crossing's line and label: a dark grey
// that no curve has.
var markColor = color.RGBA{R: 0x33, G: 0x33, B: 0x33, A: 0xff}

// bands draws the marks' intervals, the panel's full height, as a light
// shade: added before the curves, it lies under them.
type bands []Mark

func (b bands) Plot(c draw.Canvas, plt *gplot.Plot) {
	trX, trY := plt.Transforms(&c)
	y0, y1 := trY(plt.Y.Min), trY(plt.Y.Max)
	for _, m := range b {
		if !m.Interval || m.Hi <= m.Lo {
			continue
		}
		x0, x1 := trX(m.Lo), trX(m.Hi)
		c.FillPolygon(bandColor, c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
	}
}

var bandColor = color.NRGBA{R: 0x33, G: 0x33, B: 0x33, A: 0x1c}

// crossingName is the legend's name for crossing marks ms.
func crossingName(ms []Mark) string {
	for _, m := range ms {
		if m.Interval {
			return "crossing, 95% interval shaded (dotted: not resolved)"
		}
	}
	return "crossing (dotted: not resolved)"
}

// addMarks draws the lines and labels of ms on p, whose axes' ranges are
// already set, and a legend entry for them, named name.
func addMarks(p *gplot.Plot, ms []Mark, name string) error {
	if len(ms) == 0 {
		return nil
	}
	ylo, yhi := p.Y.Min, p.Y.Max
	labels := plotter.XYLabels{}
	for _, m := range ms {
		line, err := markLine(m.X, ylo, yhi, m.Resolved)
		if err != nil {
			return err
		}
		p.Add(line)
		if m.Label == "" {
			continue
		}
		// The label stands along the line, to its right, reading upwards
		// to near the panel's top (a legend is at the foot, or at the top
		// left, before a load's curves saturate).
		labels.XYs = append(labels.XYs, plotter.XY{X: m.X, Y: yhi / math.Pow(yhi/ylo, 0.02)})
		labels.Labels = append(labels.Labels, m.Label)
	}
	if err := addLabels(p, labels); err != nil {
		return err
	}
	key, err := markLine(ms[0].X, ylo, yhi, true)
	if err != nil {
		return err
	}
	p.Legend.Add(name, key)
	return nil
}

// addLabels draws the marks' labels along their lines.
func addLabels(p *gplot.Plot, labels plotter.XYLabels) error {
	if len(labels.Labels) == 0 {
		return nil
	}
	ls, err := plotter.NewLabels(labels)
	if err != nil {
		return fmt.Errorf("plot crossing: %w", err)
	}
	// Rotated a quarter turn, the text's foot faces right: its baseline
	// goes a font's height right of the line.
	ls.Offset = vg.Point{X: vg.Points(10)}
	for i := range ls.TextStyle {
		ls.TextStyle[i].Color = markColor
		ls.TextStyle[i].Rotation = math.Pi / 2
		ls.TextStyle[i].XAlign = text.XRight
		ls.TextStyle[i].YAlign = draw.YBottom
		ls.TextStyle[i].Font.Size = vg.Points(9)
	}
	p.Add(labelBacks{ls}, ls)
	return nil
}

// labelBacks lays a pale box under each of the labels, so that a curve
// crossing one does not strike its words out.
type labelBacks struct{ ls *plotter.Labels }

func (b labelBacks) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, label := range b.ls.Labels {
		at := vg.Point{X: trX(b.ls.XYs[i].X), Y: trY(b.ls.XYs[i].Y)}
		if !c.Contains(at) {
			continue
		}
		r := b.ls.TextStyle[i].Rectangle(label).Add(at.Add(b.ls.Offset))
		c.FillPolygon(backColor, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
	}
}

var backColor = color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xc0}

// markLine is a crossing's vertical line at x: dashed, or dotted when it
// is not resolved.
func markLine(x, ylo, yhi float64, resolved bool) (*plotter.Line, error) {
	line, err := plotter.NewLine(plotter.XYs{{X: x, Y: ylo}, {X: x, Y: yhi}})
	if err != nil {
		return nil, fmt.Errorf("plot crossing: %w", err)
	}
	line.LineStyle.Color = markColor
	line.LineStyle.Width = vg.Points(1)
	line.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	if !resolved {
		line.LineStyle.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
	}
	return line, nil
}
