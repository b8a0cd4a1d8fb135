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
	"gonum.org/v1/plot/text"
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
	title  string
	x, y   axis
	bands  []*plotter.Polygon // below the lines
	lines  []line
	labels []*plotter.Labels // above the lines: "max" at an unlimited point
	keys   []legendEntry     // the bands' legend entries, after the lines'
}

// axis is an axis' label and range, on a log scale where log is set.
type axis struct {
	label    string
	min, max float64
	log      bool
}

// fitTimes fits the axis to times from lo to hi: tails span decades, so a
// log scale once they do, with room for a marker above and below (the
// legend is above the data area); else linear from 0.
func (a *axis) fitTimes(lo, hi float64) {
	a.log = lo > 0 && hi/lo >= 8
	if a.log {
		a.min, a.max = lo/1.15, hi*1.15
	} else {
		a.min, a.max = widen(0, hi*1.05)
	}
}

// line is one series: a polyline with a marker at every point, or none
// where marks is nil (a trace of thousands of points would be all markers).
type line struct {
	label string
	*plotter.Line
	marks *plotter.Scatter
}

// newLine is the i-th series' line through pts, in the i-th colour and,
// where marked, gonum/plotutil's i-th marker shape.
func newLine(label string, pts plotter.XYs, i int, marked bool) line {
	l := line{label: label, Line: &plotter.Line{XYs: pts, LineStyle: plotter.DefaultLineStyle}}
	l.Color = seriesColor(i)
	if marked {
		g := plotter.DefaultGlyphStyle
		g.Color, g.Shape = l.Color, plotutil.Shape(i)
		l.marks = &plotter.Scatter{XYs: pts, GlyphStyle: g}
	}
	return l
}

// seriesColor is the i-th series' colour: gonum/plotutil's dark colours,
// blue and orange first, as its first two, red and green, are the pair
// that the one man in twelve who sees colours weakly cannot tell apart;
// the soft ones left hollow markers faint on white.
func seriesColor(i int) color.Color {
	return plotutil.DarkColors[[]int{2, 3, 1, 0, 4, 5, 6}[i%7]]
}

// band is the area between two series, translucent in the i-th colour.
func band(ring plotter.XYs, i int) *plotter.Polygon {
	r, g, b, _ := seriesColor(i).RGBA()
	return &plotter.Polygon{
		XYs:   []plotter.XYs{ring},
		Color: color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 50},
	}
}

// plot is the panel as a gonum/plot Plot with its legend: grid lines at the
// labelled ticks, the bands, then the lines, each with a legend entry.
// width is about the width the plot gets, to fit its title and legend in.
func (p *panel) plot(width vg.Length) *figure {
	pl := plot.New()
	pl.X.Label.Text, pl.Y.Label.Text = p.x.label, p.y.label
	pl.Add(plotter.NewGrid())
	for _, b := range p.bands {
		pl.Add(b)
	}
	var legend []legendEntry
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
		legend = append(legend, legendEntry{l.label, thumbs})
	}
	for _, l := range p.labels {
		pl.Add(l)
	}
	legend = append(legend, p.keys...)
	title := p.title
	if len(legend) == 0 && len(p.lines) > 0 {
		title += " (not reported)" // an empty panel is not a failure to draw
	}
	// The ranges are chosen by the chart (a shared x axis, room for a
	// marker at the top), not by the data alone.
	pl.X.Min, pl.X.Max = p.x.min, p.x.max
	pl.Y.Min, pl.Y.Max = p.y.min, p.y.max
	pl.X.Tick.Marker, pl.Y.Tick.Marker = linearTicks(8), linearTicks(6)
	if p.y.log {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = ticks125
	}
	return newFigure(pl, title, legend, width)
}

// linearTicks labels a linear axis at the multiples of one step, 1, 2 or 5
// times a power of ten, the one that gives the number of labels nearest n
// (the fewer on a tie), each written with the decimals the step needs:
// 0.00 0.05 0.10 …, never 0.00 and 2.50 alone, as plot.DefaultTicks (which
// asks for about three) labels 0 to 5. A minor tick halves the step
// (fifths of a step of 5).
func linearTicks(n int) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		step := niceStep(lo, hi, n)
		mag := math.Floor(math.Log10(step) + 1e-9)
		prec := max(0, -int(mag))
		minor := step / 2
		if math.Abs(step/math.Pow10(int(mag))-5) < 1e-9 {
			minor = step / 5
		}
		var ts []plot.Tick
		for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+minor*1e-9; k++ {
			t := plot.Tick{Value: k * minor}
			if r := math.Round(t.Value / step); math.Abs(t.Value/step-r) < 1e-6 {
				t.Value = r * step
				if r == 0 {
					t.Value = 0 // never -0
				}
				t.Label = strconv.FormatFloat(t.Value, 'f', prec, 64)
			}
			ts = append(ts, t)
		}
		return ts
	})
}

// niceStep is the step of 1, 2 or 5 times a power of ten that labels
// [lo, hi] the number of times nearest n, the larger step on a tie.
func niceStep(lo, hi float64, n int) float64 {
	raw := (hi - lo) / float64(n)
	if !(raw > 0) || math.IsInf(raw, 0) {
		return 1
	}
	best, bestOff := 0.0, math.Inf(1)
	for e := math.Floor(math.Log10(raw)) + 1; e >= math.Floor(math.Log10(raw))-1; e-- {
		for _, m := range []float64{5, 2, 1} {
			s := m * math.Pow10(int(e))
			count := math.Floor(hi/s+1e-9) - math.Ceil(lo/s-1e-9) + 1
			if off := math.Abs(count - float64(n)); off < bestOff {
				best, bestOff = s, off
			}
		}
	}
	return best
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

// stack is the panels one above the other in a w × h picture.
func stack(w, h vg.Length, panels []*panel) picture {
	figs := make([][]*figure, len(panels))
	for i, p := range panels {
		figs[i] = []*figure{p.plot(w - vg.Inch)}
	}
	return picture{w: w, h: h, figs: figs, tiles: stackTiles}
}

// stackTiles are the pads of plots one above the other, with room at the
// right for the last tick label, which gonum/plot draws up to the edge.
var stackTiles = draw.Tiles{PadTop: vg.Points(8), PadBottom: vg.Points(8), PadX: vg.Points(8), PadY: vg.Points(16), PadLeft: vg.Points(4), PadRight: vg.Points(16)}

// picture is what one file shows: figures (rows of columns) in a w × h
// picture, their data areas lined up by plot.Align, under heading and the
// lines of notes where they are not empty. Where width is set (and below
// w), the figures take that width, in the middle, and the heading and notes
// the whole picture.
type picture struct {
	w, h     vg.Length
	heading  string
	notes    []string
	figs     [][]*figure
	tiles    draw.Tiles
	width    vg.Length
	overlays func(canvases [][]draw.Canvas) // drawn after the figures
}

// noteStyle is the style of a picture's notes: a tick label's font, a
// little larger.
func noteStyle() text.Style {
	sty := plot.New().Title.TextStyle
	sty.Font.Size = vg.Points(10.5)
	return sty
}

// layout draws the heading and the notes into dc and returns the canvases
// of the figures, lined up. The tiles' Rows and Cols are taken from figs.
func (p picture) layout(dc draw.Canvas) [][]draw.Canvas {
	pad := vg.Points(5)
	if p.heading != "" {
		// gonum/plot titles a plot, not a picture of several: the heading
		// over them all is drawn here, in a plot title's style.
		sty := plot.New().Title.TextStyle
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - pad}, p.heading)
		dc.Max.Y -= sty.Height(p.heading) + 2*pad
	}
	if len(p.notes) > 0 {
		sty := noteStyle()
		txt := strings.Join(p.notes, "\n")
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y}, txt)
		dc.Max.Y -= sty.Height(txt) + pad
	}
	if p.width > 0 && p.width < dc.Max.X-dc.Min.X {
		side := (dc.Max.X - dc.Min.X - p.width) / 2
		dc = draw.Crop(dc, side, -side, 0, 0)
	}
	tiles := p.tiles
	tiles.Rows, tiles.Cols = len(p.figs), len(p.figs[0])
	plots := make([][]*plot.Plot, len(p.figs))
	for i, row := range p.figs {
		for _, f := range row {
			plots[i] = append(plots[i], f.Plot)
		}
	}
	return plot.Align(plots, tiles, dc)
}

// draw draws the picture onto dc.
func (p picture) draw(dc draw.Canvas) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	cs := p.layout(dc)
	for i, row := range cs {
		for j, c := range row {
			p.figs[i][j].draw(c)
		}
	}
	if p.overlays != nil {
		p.overlays(cs)
	}
}

// save writes the picture to path, whole or not at all.
func (p picture) save(path string) error {
	canvas, err := newCanvas(path, p.w, p.h)
	if err != nil {
		return err
	}
	p.draw(draw.New(canvas))
	return writeCanvas(path, canvas)
}

// legendEntry is one entry of a figure's legend: its text and the samples
// of what it names.
type legendEntry struct {
	text   string
	thumbs []plot.Thumbnailer
}

// figure is a gonum/plot Plot with its legend in rows of entries between
// its title and its data area, not on it: gonum/plot draws a legend inside
// the data area, where it sat on points (at the top right, its samples cut
// by the picture's edge), however much room above the data one left.
type figure struct {
	*plot.Plot
	legend [][]legendEntry // rows
	gap    vg.Length       // between the title and the legend
}

// legendBox is where an entry is drawn: its sample and its text.
type legendBox struct {
	thumb, text vg.Rectangle
	entry       legendEntry
}

// newFigure titles pl and gives its legend rows that fit in width, the
// room for them taken from the data area through the title's padding
// (what plot.Align and DataCanvas count).
func newFigure(pl *plot.Plot, title string, legend []legendEntry, width vg.Length) *figure {
	f := &figure{Plot: pl, gap: vg.Points(4)}
	pl.Title.Text = fitText(pl.Title.TextStyle, title, width)
	var row []legendEntry
	var used vg.Length
	for _, e := range legend {
		w := f.entryWidth(e)
		if len(row) > 0 && used+w > width {
			f.legend = append(f.legend, row)
			row, used = nil, 0
		}
		row = append(row, e)
		used += w + f.entrySpace()
	}
	if len(row) > 0 {
		f.legend = append(f.legend, row)
	}
	if len(f.legend) > 0 {
		if pl.Title.Text == "" {
			pl.Title.Text = " " // DataCanvas counts the padding only under a title
		}
		pl.Title.Padding += vg.Length(len(f.legend))*f.lineHeight() + 2*f.gap // a gap above the legend, one below
	}
	return f
}

func (f *figure) lineHeight() vg.Length {
	return f.Legend.TextStyle.Rectangle("Xg").Size().Y + vg.Points(2)
}

func (f *figure) entrySpace() vg.Length { return 2 * f.Legend.TextStyle.Width("  ") }

func (f *figure) entryWidth(e legendEntry) vg.Length {
	return f.Legend.ThumbnailWidth + f.Legend.TextStyle.Width(" ") + f.Legend.TextStyle.Width(e.text)
}

// legendBoxes lays the legend out in the figure's canvas c: each row
// centred over the data area, the rows from just under the title down.
func (f *figure) legendBoxes(c draw.Canvas) []legendBox {
	var out []legendBox
	data := f.DataCanvas(c)
	top := c.Max.Y - f.Title.TextStyle.Rectangle(f.Title.Text).Size().Y - f.gap
	lh := f.lineHeight()
	for k, row := range f.legend {
		var w vg.Length
		for i, e := range row {
			if i > 0 {
				w += f.entrySpace()
			}
			w += f.entryWidth(e)
		}
		x := (data.Min.X+data.Max.X)/2 - w/2
		y0 := top - vg.Length(k+1)*lh
		for _, e := range row {
			tw := f.Legend.ThumbnailWidth
			b := legendBox{entry: e,
				thumb: vg.Rectangle{Min: vg.Point{X: x, Y: y0 + vg.Points(1)}, Max: vg.Point{X: x + tw, Y: y0 + lh - vg.Points(1)}}}
			tx := x + tw + f.Legend.TextStyle.Width(" ")
			b.text = vg.Rectangle{Min: vg.Point{X: tx, Y: y0}, Max: vg.Point{X: tx + f.Legend.TextStyle.Width(e.text), Y: y0 + lh}}
			out = append(out, b)
			x += f.entryWidth(e) + f.entrySpace()
		}
	}
	return out
}

// draw draws the plot and its legend into c.
func (f *figure) draw(c draw.Canvas) {
	f.Plot.Draw(c)
	sty := f.Legend.TextStyle
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	for _, b := range f.legendBoxes(c) {
		thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: b.thumb}
		for _, t := range b.entry.thumbs {
			t.Thumbnail(&thumb)
		}
		c.FillText(sty, vg.Point{X: b.text.Min.X, Y: (b.text.Min.Y + b.text.Max.Y) / 2}, b.entry.text)
	}
}

// fitText breaks the lines of txt that are wider than width at their
// spaces, so that a long title (a CPU model, a cgroup path) is not cut at
// the picture's edges.
func fitText(sty text.Style, txt string, width vg.Length) string {
	if width <= 0 {
		return txt
	}
	var out []string
	for _, line := range strings.Split(txt, "\n") {
		words := strings.Split(line, " ")
		cur := words[0]
		for _, w := range words[1:] {
			if sty.Width(cur+" "+w) > width {
				out = append(out, cur)
				cur = w
				continue
			}
			cur += " " + w
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
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
