package plot

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

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
// value written in every square. The colour scales are shared by a row, so
// buffers compare at a glance: white is harmless (E[WCET] 1, P(WCET = 1)
// 1), the deepest colour the row's worst cell.
func SaveSimulation(path string, cells []model.Cell) error {
	if len(cells) == 0 {
		return errors.New("nothing to plot: no cells")
	}
	g := heatMaps(cells)
	worstE, worstP := 1.0, 1.0
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
	// A row where every cell is harmless still needs a range to scale.
	if worstE == 1 {
		worstE = 2
	}
	if worstP == 1 {
		worstP = 0
	}
	e := heatScale{value: func(c model.Cell) float64 { return c.EWCET }, min: 1, max: worstE, harmless: 1,
		palette: whiteTo(color.NRGBA{215, 48, 39, 255}, true)}
	p := heatScale{value: func(c model.Cell) float64 { return c.PWCET1 }, min: worstP, max: 1, harmless: 1,
		palette: whiteTo(color.NRGBA{49, 130, 189, 255}, false)}
	rows := [][]*plot.Plot{nil, nil}
	for _, b := range g.buffers {
		rows[0] = append(rows[0], g.plot("E[WCET], buffer "+b, b, e))
		rows[1] = append(rows[1], g.plot("P(WCET = 1), buffer "+b, b, p))
	}
	c0 := cells[0]
	heading := fmt.Sprintf("throttlebench simulate: %s demand, %d periods per cell, seed %d", c0.Dist, c0.Periods, c0.Seed)
	w := vg.Length(len(g.buffers))*4.5*vg.Inch + vg.Inch
	return saveTiles(path, w, 8.5*vg.Inch, heading, rows,
		draw.Tiles{PadTop: vg.Points(8), PadBottom: vg.Points(8), PadX: vg.Points(16), PadY: vg.Points(16), PadLeft: vg.Points(8), PadRight: vg.Points(8)})
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
func (g heatGrid) plot(title, buffer string, s heatScale) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
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
	return p
}
