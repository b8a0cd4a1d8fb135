package plot

import (
	"image/color"
	"math"
	"strconv"
	"sync"

	"codeberg.org/go-fonts/liberation/liberationserifregular"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The panels are drawn here on gonum/plot's drawing layer (vg, vg/draw and
// the svg and png canvases), not with gonum.org/v1/plot itself: importing that
// package (or plotter, plotutil, which import it) links all twelve Liberation
// faces, 4.4 MB, because its init registers the whole collection, and every
// output format (pdf, eps, tex) with it. The panels need one face, lines,
// markers, a band, two axes and a legend. The look follows gonum/plot's.

// serif is the one face every text uses.
var serif = font.Font{Typeface: "Liberation", Variant: "Serif"}

var fonts = sync.OnceValue(func() *font.Cache {
	f, err := opentype.Parse(liberationserifregular.TTF)
	if err != nil {
		panic("plot: embedded font: " + err.Error()) // the TTF is compiled in: cannot happen
	}
	return font.NewCache(font.Collection{{Font: serif, Face: f}})
})

func textStyle(size vg.Length, x text.XAlignment, y text.YAlignment) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(serif, size),
		XAlign:  x,
		YAlign:  y,
		Handler: text.Plain{Fonts: fonts()},
	}
}

// Sizes and styles, as gonum/plot's defaults.
var (
	titleSize, labelSize, tickSize = vg.Points(12), vg.Points(12), vg.Points(10)
	tickLength                     = vg.Points(8)
	pad                            = vg.Points(5)
	axisStyle                      = draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
	gridStyle                      = draw.LineStyle{Color: color.Gray{Y: 128}, Width: vg.Points(0.25)}
	lineWidth                      = vg.Points(1)
	glyphRadius                    = vg.Points(2.5)
	legendThumb                    = vg.Points(20)
	// colors are gonum/plotutil's SoftColors, shapes its glyph shapes.
	colors = []color.NRGBA{
		{241, 90, 96, 255}, {122, 195, 106, 255}, {90, 155, 212, 255}, {250, 167, 91, 255},
		{158, 103, 171, 255}, {206, 112, 88, 255}, {215, 127, 180, 255},
	}
	shapes = []draw.GlyphDrawer{
		draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
		draw.PlusGlyph{}, draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
	}
)

type xy struct{ X, Y float64 }

// line is one series in a panel: a polyline with a marker at every point,
// or none where shape is nil (a trace of thousands of points would be all
// markers). width 0 is lineWidth.
type line struct {
	label  string
	pts    []xy
	color  color.Color
	shape  draw.GlyphDrawer
	width  vg.Length
	dashes []vg.Length
}

func (l line) style() draw.LineStyle {
	w := l.width
	if w == 0 {
		w = lineWidth
	}
	return draw.LineStyle{Color: l.color, Width: w, Dashes: l.dashes}
}

// glyph draws l's marker at pt, if it has one.
func (l line) glyph(c draw.Canvas, pt vg.Point, clip bool) {
	if l.shape == nil {
		return
	}
	sty := draw.GlyphStyle{Color: l.color, Radius: glyphRadius, Shape: l.shape}
	if clip {
		c.DrawGlyph(sty, pt)
	} else {
		c.DrawGlyphNoClip(sty, pt)
	}
}

// band is a filled polygon in data coordinates.
type band struct {
	pts   []xy
	color color.Color
}

type axis struct {
	label    string
	min, max float64
	log      bool
}

// panel is one chart: a title, two axes, bands below lines, a legend.
type panel struct {
	title string
	x, y  axis
	bands []band
	lines []line
}

type tick struct {
	value float64
	label string // "" for a minor tick
}

func (a axis) ticks() []tick {
	if a.log {
		return ticks125(a.min, a.max)
	}
	return linearTicks(a.min, a.max)
}

// norm maps v to [0, 1] along the axis; NaN where a log axis cannot show v.
func (a axis) norm(v float64) float64 {
	if a.log {
		if v <= 0 {
			return math.NaN()
		}
		return (math.Log(v) - math.Log(a.min)) / (math.Log(a.max) - math.Log(a.min))
	}
	return (v - a.min) / (a.max - a.min)
}

// linearTicks labels about five round values (1, 2 or 5 times a power of
// ten apart) and puts minor ticks between them.
func linearTicks(lo, hi float64) []tick {
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	m := 10.0
	for _, c := range []float64{1, 2, 5} {
		if c*mag >= raw {
			m = c
			break
		}
	}
	step := m * mag
	minorPer := 5
	if m == 2 {
		minorPer = 4
	}
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	minor := step / float64(minorPer)
	var ts []tick
	// Integer multiples, so that no rounding error adds up along the axis.
	for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+minor*1e-9; k++ {
		v := k*minor + 0 // + 0 turns -0 into 0, which has no minus sign
		t := tick{value: v}
		if int64(k)%int64(minorPer) == 0 {
			t.label = strconv.FormatFloat(v, 'f', prec, 64)
		}
		ts = append(ts, t)
	}
	return ts
}

// ticks125 labels a log axis at 1, 2 and 5 times the powers of ten: labels
// at the decades alone would leave most sweeps with one.
func ticks125(lo, hi float64) []tick {
	var ts []tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= lo && v <= hi {
				ts = append(ts, tick{value: v, label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return ts
}

// leftWidth is the room the y axis takes: its label (turned upright), the
// widest tick label and the tick marks.
func (p *panel) leftWidth() vg.Length {
	w := textStyle(labelSize, 0, 0).Height(p.y.label) + pad
	lab := textStyle(tickSize, 0, 0)
	var widest vg.Length
	for _, t := range p.y.ticks() {
		widest = max(widest, lab.Width(t.label))
	}
	return w + widest + tickLength
}

// draw draws the panel into c with a y axis leftWidth wide; the caller
// passes the widest of all panels so that their data areas line up.
func (p *panel) draw(c draw.Canvas, leftWidth vg.Length) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())

	title := textStyle(titleSize, text.XCenter, text.YTop)
	c.FillText(title, vg.Point{X: c.Center().X, Y: c.Max.Y}, p.title)
	c.Max.Y -= title.Height(p.title) + pad

	xLabel := textStyle(labelSize, text.XCenter, text.YBottom)
	xTick := textStyle(tickSize, text.XCenter, text.YTop)
	bottom := xLabel.Height(p.x.label) + xTick.Height("0") + tickLength + pad
	// The data area keeps a margin from the axis lines (as gonum/plot's
	// Padding), and room at the right for the last tick label and marker.
	data := draw.Crop(c, leftWidth+pad, -xTick.Width("0.000")/2, bottom+pad, 0)
	at := func(v xy) vg.Point {
		return vg.Point{X: data.X(p.x.norm(v.X)), Y: data.Y(p.y.norm(v.Y))}
	}

	// Axes: label, tick labels, tick marks, line; grid lines at the labels.
	axisY := data.Min.Y - pad
	c.FillText(xLabel, vg.Point{X: data.Center().X, Y: c.Min.Y}, p.x.label)
	for _, t := range p.x.ticks() {
		x := data.X(p.x.norm(t.value))
		if !data.ContainsX(x) {
			continue
		}
		l := tickLength / 2
		if t.label != "" {
			l = tickLength
			c.FillText(xTick, vg.Point{X: x, Y: axisY - tickLength}, t.label)
			data.StrokeLine2(gridStyle, x, data.Min.Y, x, data.Max.Y)
		}
		c.StrokeLine2(axisStyle, x, axisY-l, x, axisY)
	}
	c.StrokeLine2(axisStyle, data.Min.X, axisY, data.Max.X, axisY)

	axisX := data.Min.X - pad
	yLabel := textStyle(labelSize, text.XCenter, text.YTop)
	yLabel.Rotation = math.Pi / 2
	c.FillText(yLabel, vg.Point{X: c.Min.X, Y: data.Center().Y}, p.y.label)
	yTick := textStyle(tickSize, text.XRight, text.YCenter)
	for _, t := range p.y.ticks() {
		y := data.Y(p.y.norm(t.value))
		if !data.ContainsY(y) {
			continue
		}
		l := tickLength / 2
		if t.label != "" {
			l = tickLength
			c.FillText(yTick, vg.Point{X: axisX - tickLength, Y: y}, t.label)
			data.StrokeLine2(gridStyle, data.Min.X, y, data.Max.X, y)
		}
		c.StrokeLine2(axisStyle, axisX-l, y, axisX, y)
	}
	c.StrokeLine2(axisStyle, axisX, data.Min.Y, axisX, data.Max.Y)

	for _, b := range p.bands {
		var poly []vg.Point
		for _, v := range b.pts {
			poly = append(poly, at(v))
		}
		data.FillPolygon(b.color, data.ClipPolygonXY(poly))
	}
	for _, l := range p.lines {
		var pts []vg.Point
		for _, v := range l.pts {
			if pt := at(v); !math.IsNaN(float64(pt.Y)) {
				pts = append(pts, pt)
			}
		}
		data.StrokeLines(l.style(), data.ClipLinesXY(pts)...)
		for _, pt := range pts {
			l.glyph(data, pt, true)
		}
	}
	p.drawLegend(data)
}

// drawLegend lists the series at the top right of the data area: the label,
// then a sample of the line with its marker.
func (p *panel) drawLegend(data draw.Canvas) {
	sty := textStyle(labelSize, text.XRight, text.YBottom)
	ext := sty.FontExtents()
	h := ext.Ascent + ext.Descent
	right := data.Max.X - vg.Points(12) // keep the samples inside the picture
	y := data.Max.Y - h
	for _, l := range p.lines {
		if len(l.pts) == 0 {
			continue
		}
		mid := y + h/2
		data.StrokeLine2(l.style(), right-legendThumb, mid, right, mid)
		l.glyph(data, vg.Point{X: right - legendThumb/2, Y: mid}, false)
		data.FillText(sty, vg.Point{X: right - legendThumb - sty.Width(" "), Y: y}, l.label)
		y -= h
	}
}
