package plot

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

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
	hm := heatMaps(cells)
	w := vg.Length(len(hm.buffers))*4.5*vg.Inch + vg.Inch
	canvas, err := newCanvas(path, w, 8.5*vg.Inch)
	if err != nil {
		return err
	}
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	title := textStyle(titleSize, text.XCenter, text.YTop)
	c0 := cells[0]
	heading := fmt.Sprintf("throttlebench simulate: %s demand, %d periods per cell, seed %d", c0.Dist, c0.Periods, c0.Seed)
	dc.FillText(title, vg.Point{X: dc.Center().X, Y: dc.Max.Y - pad}, heading)
	dc.Max.Y -= title.Height(heading) + 2*pad
	tiles := draw.Tiles{Rows: 2, Cols: len(hm.buffers), PadTop: vg.Points(8), PadBottom: vg.Points(8), PadX: vg.Points(16), PadY: vg.Points(16), PadLeft: vg.Points(8), PadRight: vg.Points(8)}
	worstE := 1.0
	worstP := 1.0
	for _, c := range cells {
		worstE = max(worstE, c.EWCET)
		worstP = min(worstP, c.PWCET1)
	}
	for j, b := range hm.buffers {
		hm.draw(tiles.At(dc, j, 0), b, "E[WCET], buffer "+b, func(c model.Cell) float64 { return c.EWCET },
			func(v float64) float64 { return (v - 1) / (worstE - 1) }, color.NRGBA{215, 48, 39, 255}, "%.3f")
		hm.draw(tiles.At(dc, j, 1), b, "P(WCET = 1), buffer "+b, func(c model.Cell) float64 { return c.PWCET1 },
			func(v float64) float64 { return (1 - v) / (1 - worstP) }, color.NRGBA{49, 130, 189, 255}, "%.3f")
	}
	return writeCanvas(path, canvas)
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

// draw draws one heat map: shade maps a value to 0 (white) … 1 (full hue).
func (g heatGrid) draw(c draw.Canvas, buffer, title string, value func(model.Cell) float64, shade func(float64) float64, hue color.NRGBA, format string) {
	ts := textStyle(titleSize, text.XCenter, text.YTop)
	c.FillText(ts, vg.Point{X: c.Center().X, Y: c.Max.Y}, title)
	c.Max.Y -= ts.Height(title) + pad
	xLabel := textStyle(labelSize, text.XCenter, text.YBottom)
	yLabel := textStyle(labelSize, text.XCenter, text.YTop)
	yLabel.Rotation = math.Pi / 2
	tick := textStyle(tickSize, text.XCenter, text.YTop)
	yTick := textStyle(tickSize, text.XRight, text.YCenter)
	c.FillText(xLabel, vg.Point{X: c.Center().X, Y: c.Min.Y}, "utilisation u")
	c.FillText(yLabel, vg.Point{X: c.Min.X, Y: c.Center().Y}, "cgroups m")
	left := yLabel.Height("m") + pad + yTick.Width("10000") + pad
	bottom := xLabel.Height("u") + pad + tick.Height("0") + pad
	data := draw.Crop(c, left, 0, bottom, 0)
	cw := (data.Max.X - data.Min.X) / vg.Length(len(g.utils))
	ch := (data.Max.Y - data.Min.Y) / vg.Length(len(g.cgroups))
	cellText := textStyle(tickSize, text.XCenter, text.YCenter)
	for i, u := range g.utils {
		x := data.Min.X + vg.Length(i)*cw
		c.FillText(tick, vg.Point{X: x + cw/2, Y: data.Min.Y - pad}, strconv.FormatFloat(u, 'g', 4, 64))
		for k, m := range g.cgroups {
			y := data.Min.Y + vg.Length(k)*ch
			if i == 0 {
				c.FillText(yTick, vg.Point{X: data.Min.X - pad, Y: y + ch/2}, strconv.Itoa(m))
			}
			cell, ok := g.at[heatKey{buffer, m, u}]
			if !ok {
				continue
			}
			v := value(cell)
			s := shade(v)
			if math.IsNaN(s) || math.IsInf(s, 0) {
				s = 0
			}
			s = min(max(s, 0), 1)
			mix := func(a uint8) uint8 { return uint8(math.Round(255 - s*(255-float64(a)))) }
			fill := color.NRGBA{mix(hue.R), mix(hue.G), mix(hue.B), 255}
			rect := vg.Rectangle{Min: vg.Point{X: x, Y: y}, Max: vg.Point{X: x + cw, Y: y + ch}}
			c.FillPolygon(fill, []vg.Point{rect.Min, {X: rect.Max.X, Y: rect.Min.Y}, rect.Max, {X: rect.Min.X, Y: rect.Max.Y}})
			st := cellText
			if s > 0.6 {
				st.Color = color.White
			}
			c.FillText(st, vg.Point{X: x + cw/2, Y: y + ch/2}, fmt.Sprintf(format, v))
		}
	}
	c.StrokeLines(axisStyle, []vg.Point{data.Min, {X: data.Max.X, Y: data.Min.Y}, data.Max, {X: data.Min.X, Y: data.Max.Y}, data.Min})
}
