package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
)

// The charts are gonum/plot's: a panel below says what one chart shows (its
// title, axes and series), and plot turns it into a plot.Plot, which draws
// the axes, ticks, grid, lines, markers and legend in its own style and
// font (Liberation Serif).

// panel is what one chart shows.
type panel struct {
	title string
	x, y  axis
	bands []*plotter.Polygon // below the lines
	lines []line
}

// axis is an axis' label and range, on a log scale where log is set.
type axis struct {
	label    string
	min, max float64
	log      bool
}

// line is one series: a polyline with a marker at every point, or none
// where marks is nil (a trace of thousands of points would be all markers).
type line struct {
	label string
	*plotter.Line
	marks *plotter.Scatter
}

// newLine is the i-th series' line through pts, in gonum/plotutil's i-th
// colour and, where marked, its i-th marker shape.
func newLine(label string, pts plotter.XYs, i int, marked bool) line {
	l := line{label: label, Line: &plotter.Line{XYs: pts, LineStyle: plotter.DefaultLineStyle}}
	l.Color = plotutil.Color(i)
	if marked {
		g := plotter.DefaultGlyphStyle
		g.Color, g.Shape = l.Color, plotutil.Shape(i)
		l.marks = &plotter.Scatter{XYs: pts, GlyphStyle: g}
	}
	return l
}

// band is the area between two series, translucent in the i-th colour.
func band(ring plotter.XYs, i int) *plotter.Polygon {
	r, g, b, _ := plotutil.Color(i).RGBA()
	return &plotter.Polygon{
		XYs:   []plotter.XYs{ring},
		Color: color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 50},
	}
}

// plot is the panel as a gonum/plot Plot: grid lines at the labelled ticks,
// the bands, then the lines, each with a legend entry at the top right.
func (p *panel) plot() *plot.Plot {
	pl := plot.New()
	pl.Title.Text = p.title
	pl.X.Label.Text, pl.Y.Label.Text = p.x.label, p.y.label
	pl.Add(plotter.NewGrid())
	for _, b := range p.bands {
		pl.Add(b)
	}
	for _, l := range p.lines {
		if len(l.XYs) == 0 {
			continue // not measured: no line, no legend entry
		}
		pl.Add(l.Line)
		thumbs := []plot.Thumbnailer{l.Line}
		if l.marks != nil {
			pl.Add(l.marks)
			thumbs = append(thumbs, l.marks)
		}
		pl.Legend.Add(l.label, thumbs...)
	}
	pl.Legend.Top = true
	// The ranges are chosen by the chart (room for the legend, a shared x
	// axis), not by the data alone.
	pl.X.Min, pl.X.Max = p.x.min, p.x.max
	pl.Y.Min, pl.Y.Max = p.y.min, p.y.max
	pl.X.Tick.Marker, pl.Y.Tick.Marker = halves, halves
	if p.y.log {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = ticks125
	}
	return pl
}

// halves is plot.DefaultTicks with a label also at the unlabelled tick
// halfway between two labels, where there is one: DefaultTicks asks for
// about three labels and has no knob for more, which leaves a sweep over
// 0.1 … 1 CPUs with 0.2, 0.6 and 1.0 across eight inches.
var halves = plot.TickerFunc(func(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	var labelled []plot.Tick
	for _, t := range ts {
		if !t.IsMinor() {
			labelled = append(labelled, t)
		}
	}
	for k := 1; k < len(labelled); k++ {
		a, b := labelled[k-1], labelled[k]
		mid := (a.Value + b.Value) / 2
		for i, t := range ts {
			if t.IsMinor() && math.Abs(t.Value-mid) < 1e-9*math.Abs(b.Value-a.Value) {
				ts[i].Label = midLabel(mid, a, b)
			}
		}
	}
	return ts
})

// midLabel formats v, halfway between the ticks labelled a and b, with
// the decimals they have, or the fewer more that v needs (0 and 0.04 have
// 0.02 between them).
func midLabel(v float64, a, b plot.Tick) string {
	if strings.ContainsAny(a.Label+b.Label, "eE") {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	prec := 0
	for _, l := range []string{a.Label, b.Label} {
		if i := strings.IndexByte(l, '.'); i >= 0 {
			prec = max(prec, len(l)-i-1)
		}
	}
	for ; prec < 15; prec++ {
		if r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', prec, 64), 64); math.Abs(r-v) < 1e-9*math.Abs(b.Value-a.Value) {
			break
		}
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// ticks125 labels a log axis at 1, 2 and 5 times the powers of ten, where
// plot.LogTicks labels the decades alone: that would leave most sweeps,
// which span one or two decades, with one or two labels.
var ticks125 = plot.TickerFunc(func(min, max float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(min, max)
	for i, t := range ts {
		m := t.Value / math.Pow10(int(math.Floor(math.Log10(t.Value))))
		if math.Abs(m-2) < 1e-9 || math.Abs(m-5) < 1e-9 {
			ts[i].Label = strconv.FormatFloat(t.Value, 'g', -1, 64)
		}
	}
	return ts
})

// save draws the panels one above the other into a w × h picture at path.
func save(path string, w, h vg.Length, panels []*panel) error {
	plots := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		plots[i] = []*plot.Plot{p.plot()}
	}
	return saveTiles(path, w, h, "", plots, draw.Tiles{PadTop: vg.Points(8), PadBottom: vg.Points(8), PadX: vg.Points(8), PadY: vg.Points(16),
		// Room at the right for the last tick label and the legend's
		// samples, which gonum/plot draws up to the edge.
		PadRight: vg.Points(12)})
}

// saveTiles draws plots (rows of columns) into a w × h picture at path,
// their data areas lined up by plot.Align, under heading where it is not
// empty. The tiles' Rows and Cols are taken from plots.
func saveTiles(path string, w, h vg.Length, heading string, plots [][]*plot.Plot, tiles draw.Tiles) error {
	canvas, err := newCanvas(path, w, h)
	if err != nil {
		return err
	}
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if heading != "" {
		// gonum/plot titles a plot, not a picture of several: the heading
		// over them all is drawn here, in a plot title's style.
		sty := plot.New().Title.TextStyle
		pad := vg.Points(5)
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - pad}, heading)
		dc.Max.Y -= sty.Height(heading) + 2*pad
	}
	tiles.Rows, tiles.Cols = len(plots), len(plots[0])
	for i, row := range plot.Align(plots, tiles, dc) {
		for j, c := range row {
			plots[i][j].Draw(c)
		}
	}
	return writeCanvas(path, canvas)
}

// newCanvas is a w × h canvas in the format path's extension (.svg or .png)
// names. The canvases are made here rather than by plot.Plot.WriterTo,
// whose png is at vgimg's 96 dpi: the pictures stay at 120.
func newCanvas(path string, w, h vg.Length) (vg.CanvasWriterTo, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return nil, fmt.Errorf("plot file %s: want .svg or .png", path)
	}
	if ext == ".svg" {
		return vgsvg.New(w, h), nil
	}
	return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(120), vgimg.UseBackgroundColor(color.White))}, nil
}

// writeCanvas writes the picture whole or not at all.
func writeCanvas(path string, canvas vg.CanvasWriterTo) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := canvas.WriteTo(w)
		return err
	})
}
