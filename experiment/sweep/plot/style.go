package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// family groups a curve with its relatives by mechanism, so that our poll
// and the 2002 poll() share a colour and can be told apart by their dashes.
func family(name string) string {
	n := strings.ToLower(name)
	if i := strings.LastIndex(n, ": "); i >= 0 {
		n = n[i+2:] // a reference series: "pipetest 2002: poll()"
	}
	for _, f := range []string{"epoll", "poll", "select", "bypass", "uring", "gonet"} {
		if strings.Contains(n, f) {
			return f
		}
	}
	return ""
}

var familyColor = map[string]color.RGBA{
	"poll":   {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // blue
	"select": {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // green
	"epoll":  {R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
	"bypass": {R: 0x40, G: 0x40, B: 0x40, A: 0xff}, // dark grey
	"uring":  {R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // purple
	"gonet":  {R: 0x17, G: 0xbe, B: 0xcf, A: 0xff}, // cyan
}

// others colour curves of no known family, and further curves of a family
// that already has its colour.
var others = []color.RGBA{
	{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // orange
	{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, // brown
	{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff}, // pink
	{R: 0xbc, G: 0xbd, B: 0x22, A: 0xff}, // olive
	{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}, // grey
}

var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.CrossGlyph{}}

var dashes = [][]vg.Length{
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
}

// styler hands out colours, glyphs and dashes as curves are added.
type styler struct {
	used          map[string]int // curves of ours per family
	refs          map[string]int // reference curves per family
	other, glyphN int
	groups        map[string]color.RGBA // the colour of each group (Series.Group)
}

func newStyler() *styler {
	return &styler{used: map[string]int{}, refs: map[string]int{}, groups: map[string]color.RGBA{}}
}

// styleSeries styles s's line and points: as style does, or, for a curve
// of a group, in the group's colour (the first curve of the group takes
// one as style gives it) with the variant's dash and glyph, so that the
// same variant of every group looks alike but for its colour.
func (st *styler) styleSeries(s Series, ref bool, line *plotter.Line, dots *plotter.Scatter) {
	if s.Group == "" || ref {
		st.style(s.Name, ref, line, dots)
		return
	}
	c, ok := st.groups[s.Group]
	if !ok {
		st.style(s.Group, false, line, dots)
		c = line.LineStyle.Color.(color.RGBA)
		st.groups[s.Group] = c
	}
	line.LineStyle.Color, dots.GlyphStyle.Color = c, c
	line.LineStyle.Width = vg.Points(2)
	if s.Variant > 0 {
		line.LineStyle.Dashes = dashes[(s.Variant-1)%len(dashes)]
	}
	dots.GlyphStyle.Shape = glyphs[s.Variant%len(glyphs)]
	dots.GlyphStyle.Radius = vg.Points(3)
}

func (st *styler) style(name string, ref bool, line *plotter.Line, dots *plotter.Scatter) {
	fam := family(name)
	c, known := familyColor[fam]
	k := st.used[fam]
	if ref {
		k = st.refs[fam]
		st.refs[fam]++
	} else {
		st.used[fam]++
	}
	if !known || (!ref && k > 0) {
		c = others[st.other%len(others)]
		st.other++
	}
	line.LineStyle.Color = c
	dots.GlyphStyle.Color = c
	if ref {
		// Lighter, thinner and dashed: the published curve behind ours.
		line.LineStyle.Color = lighten(c, 0.35)
		line.LineStyle.Width = vg.Points(1.5)
		line.LineStyle.Dashes = dashes[k%len(dashes)]
		dots.GlyphStyle.Color = lighten(c, 0.35)
		dots.GlyphStyle.Shape = draw.CrossGlyph{}
		dots.GlyphStyle.Radius = vg.Points(2.5)
		return
	}
	line.LineStyle.Width = vg.Points(2)
	dots.GlyphStyle.Shape = glyphs[st.glyphN%len(glyphs)]
	dots.GlyphStyle.Radius = vg.Points(3)
	st.glyphN++
}

func lighten(c color.RGBA, f float64) color.RGBA {
	l := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f) }
	return color.RGBA{R: l(c.R), G: l(c.G), B: l(c.B), A: c.A}
}

// logTicks labels every decade (1, 10, 100, 1k, ... and 0.1, 0.01, ...),
// and 2 and 5 times each decade when the axis spans less than two decades,
// with unlabelled minor ticks between.
type logTicks struct{}

var _ gplot.Ticker = logTicks{}

func (logTicks) Ticks(lo, hi float64) []gplot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	dense := math.Log10(hi/lo) < 2
	var ticks []gplot.Tick
	for e := first; e <= last; e++ {
		dec := math.Pow10(e)
		for m := 1; m < 10; m++ {
			v := dec * float64(m)
			if v < lo || v > hi {
				continue
			}
			t := gplot.Tick{Value: v}
			if m == 1 || dense && (m == 2 || m == 5) {
				t.Label = tickLabel(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// shortTicks are gonum's default ticks of a linear axis, labelled with k
// and M (short).
type shortTicks struct{}

var _ gplot.Ticker = shortTicks{}

func (shortTicks) Ticks(lo, hi float64) []gplot.Tick {
	ticks := gplot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = tickLabel(ticks[i].Value)
		}
	}
	return ticks
}

func tickLabel(v float64) string {
	if v >= 1000 {
		return short(v)
	}
	return fmt.Sprintf("%g", v)
}
