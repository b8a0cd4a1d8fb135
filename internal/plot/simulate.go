package plot

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/throttlebench/throttlebench/internal/model"
)

// SaveSimulation draws simulate's cells as heat maps into path (.svg or
// .png): E[WCET] in the top row and P(WCET = 1) in the bottom one, one
// column per buffer, each a grid of utilisation (x) × cgroups (y) with the
// value written in every square, under lines that say what the values
// mean. The colour scales are shared by a row, so buffers compare at a
// glance, and drawn at its right: white is harmless (E[WCET] 1, P(WCET = 1)
// 1), the deepest colour the row's worst cell, or 1.01 and 0.99 where every
// cell is closer to harmless than that, so that an overrun of a thousandth
// is not painted as deep as the worst.
func SaveSimulation(path string, cells []model.Cell) error {
	pic, err := simulationPicture(cells)
	if err != nil {
		return err
	}
	return pic.save(path)
}

// simulationNotes say what the values are (internal/model's definitions,
// docs/simulate.md's words) and what 1 means, on the chart itself.
var simulationNotes = []string{
	"WCET: the periods the shared CPU takes to run one period's work (1 + the backlog carried into the next).",
	"E[WCET]: its mean; 1.000 = every period's work ran within its period, 1.025 = 2.5% of a period late on average.",
	"P(WCET = 1): the share of periods whose work ran within them; 1.000 = all, 0.990 = one period in a hundred overran.",
}

// The colour scales reach at least this far from harmless.
const minScaleE, minScaleP = 1.01, 0.99

// The side of a heat map's square: as large as fits a panel of about 3.6 ×
// 3 in, at most 1.1 in (a grid of one cell is a square, not a page of
// colour), at least 0.45 in (the value written in it fits).
const (
	panelW, panelH   = 3.6 * vg.Inch, 3 * vg.Inch
	maxSide, minSide = 1.1 * vg.Inch, 0.45 * vg.Inch
	scaleW           = 1.2 * vg.Inch // the colour scales at the right
)

func simulationPicture(cells []model.Cell) (picture, error) {
	if len(cells) == 0 {
		return picture{}, errors.New("nothing to plot: no cells")
	}
	g := heatMaps(cells)
	e, p := heatScalesOf(cells)
	scales := []heatScale{e, p}

	nu, nm := vg.Length(len(g.utils)), vg.Length(len(g.cgroups))
	side := max(min(maxSide, panelW/nu, panelH/nm), minSide)
	c0 := cells[0]
	pic := picture{
		heading: fmt.Sprintf("throttlebench simulate: %s demand, %d periods per cell, seed %d", c0.Dist, c0.Periods, c0.Seed),
		notes:   simulationNotes,
		figs:    [][]*figure{nil, nil},
		tiles:   draw.Tiles{PadTop: vg.Points(8), PadBottom: vg.Points(8), PadX: vg.Points(16), PadY: vg.Points(16), PadLeft: vg.Points(8), PadRight: scaleW},
	}
	for _, b := range g.buffers {
		for i, s := range scales {
			pic.figs[i] = append(pic.figs[i], g.plot(s.name+"\n"+bufferTitle(b), b, s, nu*side+vg.Inch))
		}
	}
	// Each heat map's size is its squares' and what is around them (its
	// title, ticks and labels), as gonum/plot lays it out.
	var aroundW, aroundH vg.Length
	for _, row := range pic.figs {
		for _, f := range row {
			big := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: 20 * vg.Inch, Y: 20 * vg.Inch}}}
			d := f.DataCanvas(big)
			aroundW = max(aroundW, 20*vg.Inch-(d.Max.X-d.Min.X))
			aroundH = max(aroundH, 20*vg.Inch-(d.Max.Y-d.Min.Y))
		}
	}
	cols := vg.Length(len(g.buffers))
	t := pic.tiles
	pic.width = cols*(nu*side+aroundW) + (cols-1)*t.PadX + t.PadLeft + t.PadRight
	notesW := 0 * vg.Inch
	for _, n := range pic.notes {
		notesW = max(notesW, noteStyle().Width(n))
	}
	pic.w = max(pic.width, notesW+0.4*vg.Inch)
	// The rows get what is left under the heading and the notes (layout's
	// pads: 5 pt around the heading, 5 under the notes) and the tiles' pads.
	pic.h = 2*(nm*side+aroundH) + t.PadTop + t.PadBottom + t.PadY +
		plot.New().Title.TextStyle.Height(pic.heading) + noteStyle().Height(strings.Join(pic.notes, "\n")) + vg.Points(15)
	pic.overlays = func(cs [][]draw.Canvas) {
		for i, s := range scales {
			last := len(cs[i]) - 1
			data := pic.figs[i][last].DataCanvas(cs[i][last])
			s.drawBar(data.Canvas, vg.Rectangle{
				Min: vg.Point{X: data.Max.X + 0.15*vg.Inch, Y: data.Min.Y},
				Max: vg.Point{X: data.Max.X + 0.35*vg.Inch, Y: data.Max.Y}})
		}
	}
	return pic, nil
}

// heatScalesOf are the rows' scales: from harmless to the worst cell, or
// to minScaleE and minScaleP where every cell is closer to harmless.
func heatScalesOf(cells []model.Cell) (e, p heatScale) {
	worstE, worstP := minScaleE, minScaleP
	for _, c := range cells {
		// max and min would carry a NaN into the scale, and every cell
		// with it; a NaN cell is left unfilled by the heat map instead.
		if !math.IsNaN(c.EWCET) {
			worstE = max(worstE, c.EWCET)
		}
		if !math.IsNaN(c.PWCET1) {
			worstP = min(worstP, c.PWCET1)
		}
	}
	e = heatScale{name: "E[WCET]", value: func(c model.Cell) float64 { return c.EWCET }, min: 1, max: worstE, harmless: 1,
		palette: whiteTo(color.NRGBA{215, 48, 39, 255}, true)}
	p = heatScale{name: "P(WCET = 1)", value: func(c model.Cell) float64 { return c.PWCET1 }, min: worstP, max: 1, harmless: 1,
		palette: whiteTo(color.NRGBA{49, 130, 189, 255}, false)}
	return e, p
}

// bufferTitle names a buffer for a panel's title: in quotas, with what the
// ends mean.
func bufferTitle(b string) string {
	switch b {
	case "0":
		return "buffer 0 (no burst)"
	case "inf":
		return "buffer inf (no cap)"
	case "1":
		return "buffer 1 quota"
	}
	return "buffer " + b + " quotas"
}

// drawBar draws the scale as a vertical bar in r, harmless (white) at the
// top for E[WCET] as for P(WCET = 1), each end labelled with its value.
func (s heatScale) drawBar(c vg.Canvas, r vg.Rectangle) {
	dc := draw.Canvas{Canvas: c, Rectangle: r}
	n := len(s.palette.Colors())
	h := (r.Max.Y - r.Min.Y) / vg.Length(n)
	for k, col := range s.palette.Colors() {
		// Colour k is value min + k/(n-1) of the range; the harmless end
		// is drawn at the top.
		y := r.Min.Y + vg.Length(k)*h
		if s.harmless == s.min {
			y = r.Max.Y - vg.Length(k+1)*h
		}
		dc.SetColor(col)
		dc.Fill(vg.Rectangle{Min: vg.Point{X: r.Min.X, Y: y}, Max: vg.Point{X: r.Max.X, Y: y + h + vg.Points(0.3)}}.Path())
	}
	dc.SetLineWidth(vg.Points(0.5))
	dc.SetColor(color.Gray{Y: 128})
	dc.Stroke(r.Path())
	sty := plot.New().X.Tick.Label
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	worst := s.max
	if s.harmless == s.max {
		worst = s.min
	}
	x := r.Max.X + vg.Points(4)
	dc.FillText(sty, vg.Point{X: x, Y: r.Max.Y}, fmt.Sprintf("%.3f", s.harmless))
	dc.FillText(sty, vg.Point{X: x, Y: r.Min.Y}, fmt.Sprintf("%.3f", worst))
	caption := sty
	caption.XAlign, caption.YAlign = draw.XLeft, draw.YBottom
	dc.FillText(caption, vg.Point{X: r.Min.X, Y: r.Max.Y + vg.Points(4)}, s.name)
}

// whiteTo is a palette from white to hue (from hue to white where
// fromWhite is false), even in lightness: moreland's luminance map, which
// wants its controls from dark to light.
func whiteTo(hue color.Color, fromWhite bool) palette.Palette {
	m, err := moreland.NewLuminance([]color.Color{hue, color.White})
	if err != nil {
		panic("plot: heat map palette: " + err.Error()) // fixed colours, darker than white: cannot happen
	}
	if fromWhite {
		m = palette.Reverse(m)
	}
	return m.Palette(256)
}

// heatScale is one row's measure and its colour scale, shared by the row.
type heatScale struct {
	name     string
	value    func(model.Cell) float64
	min, max float64
	harmless float64 // the white end
	palette  palette.Palette
}

// heatGrid indexes the cells by buffer, cgroups and utilisation.
type heatGrid struct {
	buffers []string
	cgroups []int
	utils   []float64
	at      map[heatKey]model.Cell
}

type heatKey struct {
	buffer string
	m      int
	u      float64
}

func bufferLabel(b model.Buffer) string {
	if math.IsInf(float64(b), 1) {
		return "inf"
	}
	return strconv.FormatFloat(float64(b), 'g', -1, 64)
}

func heatMaps(cells []model.Cell) heatGrid {
	g := heatGrid{at: map[heatKey]model.Cell{}}
	var bs []model.Buffer
	for _, c := range cells {
		bs = append(bs, c.Buffer)
		g.cgroups = append(g.cgroups, c.Cgroups)
		g.utils = append(g.utils, c.Util)
		g.at[heatKey{bufferLabel(c.Buffer), c.Cgroups, c.Util}] = c
	}
	slices.Sort(bs)
	for _, b := range slices.Compact(bs) {
		g.buffers = append(g.buffers, bufferLabel(b))
	}
	slices.Sort(g.cgroups)
	g.cgroups = slices.Compact(g.cgroups)
	slices.SortFunc(g.utils, cmp.Compare)
	g.utils = slices.Compact(g.utils)
	return g
}

// heatValues is one buffer's measure as a plotter.GridXYZ: column c is the
// c-th utilisation, row r the r-th cgroups count, one unit apart so that
// the squares are even; NaN where no cell was simulated.
type heatValues struct {
	g      heatGrid
	buffer string
	value  func(model.Cell) float64
}

func (h heatValues) Dims() (c, r int) { return len(h.g.utils), len(h.g.cgroups) }
func (h heatValues) X(c int) float64  { return float64(c) }
func (h heatValues) Y(r int) float64  { return float64(r) }
func (h heatValues) Z(c, r int) float64 {
	cell, ok := h.g.at[heatKey{h.buffer, h.g.cgroups[r], h.g.utils[c]}]
	if !ok {
		return math.NaN()
	}
	return h.value(cell)
}

// plot is one heat map: a plotter.HeatMap on the row's scale, the value
// written in every square (white on the deep colours), the utilisations
// and cgroups counts as the ticks.
func (g heatGrid) plot(title, buffer string, s heatScale, width vg.Length) *figure {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = "utilisation u", "cgroups m"
	vals := heatValues{g: g, buffer: buffer, value: s.value}
	hm := plotter.NewHeatMap(vals, s.palette)
	hm.Min, hm.Max = s.min, s.max
	p.Add(hm)

	var labels plotter.XYLabels
	var styles []text.Style
	for i := range g.utils {
		for k := range g.cgroups {
			v := vals.Z(i, k)
			if math.IsNaN(v) {
				continue
			}
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: float64(k)})
			labels.Labels = append(labels.Labels, fmt.Sprintf("%.3f", v))
			sty := text.Style{Color: color.Black, Font: p.X.Tick.Label.Font, XAlign: text.XCenter, YAlign: text.YCenter, Handler: p.TextHandler}
			if math.Abs(v-s.harmless)/(s.max-s.min) > 0.6 {
				sty.Color = color.White
			}
			styles = append(styles, sty)
		}
	}
	if len(labels.XYs) > 0 {
		l, err := plotter.NewLabels(labels)
		if err != nil {
			panic("plot: heat map labels: " + err.Error()) // one label per point, all finite: cannot happen
		}
		l.TextStyle = styles
		p.Add(l)
	}

	var xt, yt plot.ConstantTicks
	for i, u := range g.utils {
		xt = append(xt, plot.Tick{Value: float64(i), Label: strconv.FormatFloat(u, 'g', 4, 64)})
	}
	for k, m := range g.cgroups {
		yt = append(yt, plot.Tick{Value: float64(k), Label: strconv.Itoa(m)})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
	// The squares fill the frame, as a table's cells.
	p.X.Padding, p.Y.Padding = 0, 0
	return newFigure(p, title, nil, width)
}
