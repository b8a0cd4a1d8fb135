package plot

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"

	"github.com/throttlebench/throttlebench/internal/model"
)

func cells() []model.Cell {
	var cs []model.Cell
	for _, b := range []model.Buffer{0, model.Buffer(math.Inf(1))} {
		for _, m := range []int{10, 20} {
			for _, u := range []float64{0.5, 0.9} {
				e := 1 + u*float64(m)/50
				if b != 0 {
					e = 1
				}
				cs = append(cs, model.Cell{Cgroups: m, Util: u, Buffer: b, Dist: "exp", Periods: 500, Seed: 7, EWCET: e, PWCET1: 1 / e})
			}
		}
	}
	return cs
}

// Two rows of heat maps, one column per buffer, the value in every square.
func TestSaveSimulationSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grid.svg")
	require.NoError(t, SaveSimulation(path, cells()))
	s := svgTexts(t, path)
	assert.Contains(t, s, "throttlebench simulate: exp demand, 500 periods per cell, seed 7")
	assert.Equal(t, 3, strings.Count(s, "E[WCET]\n"), "2 titles and the scale's name")
	assert.Equal(t, 3, strings.Count(s, "P(WCET = 1)\n"), "2 titles, the scale's name")
	assert.Equal(t, 2, strings.Count(s, "buffer 0 (no burst)\n"))
	assert.Equal(t, 2, strings.Count(s, "buffer inf (no cap)\n"))
	for _, note := range simulationNotes {
		assert.Equal(t, 1, strings.Count(s, note+"\n"), "what the values mean, on the chart: %s", note)
	}
	assert.Equal(t, 4, strings.Count(s, "utilisation u\n"))
	assert.Equal(t, 4, strings.Count(s, "cgroups m\n"))
	assert.Contains(t, s, "1.360\n", "E[WCET] at m = 20, u = 0.9, buffer 0")
	assert.Equal(t, 10, strings.Count(s, "1.000\n"), "buffer inf: E[WCET] and P(WCET = 1) of 1 in its 4 squares each, and the harmless end of each scale")
}

// A cell that is NaN is left blank; the others are drawn all the same.
func TestSaveSimulationNaN(t *testing.T) {
	cs := cells()
	cs[0].EWCET, cs[0].PWCET1 = math.NaN(), math.NaN()
	path := filepath.Join(t.TempDir(), "grid.png")
	require.NoError(t, SaveSimulation(path, cs))
	decodePNG(t, path)

	assert.Error(t, SaveSimulation(path, nil))
	assert.Error(t, SaveSimulation(filepath.Join(t.TempDir(), "x.pdf"), cells()))
}

// The squares are squares, 1.1 in at most: a grid of one cell is a square
// beside its scale, not a page of colour; a grid of 7 × 3 fits 3.6 in.
func TestHeatMapSquares(t *testing.T) {
	var grid []model.Cell
	for _, m := range []int{10, 20, 30} {
		for u := 1; u <= 7; u++ {
			grid = append(grid, model.Cell{Cgroups: m, Util: float64(u) / 10, Buffer: 2, EWCET: 1, PWCET1: 1})
		}
	}
	for name, tc := range map[string]struct {
		cells []model.Cell
		side  vg.Length
	}{
		"one cell": {cells()[:1], 1.1 * vg.Inch},
		"2 × 2":    {cells(), 1.1 * vg.Inch},
		"7 × 3":    {grid, 3.6 * vg.Inch / 7},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := simulationPicture(tc.cells)
			require.NoError(t, err)
			_, cs := laidOut(p)
			for i, row := range cs {
				for j, c := range row {
					d := p.figs[i][j].DataCanvas(c)
					nu, nm := p.figs[i][j].X.Max-p.figs[i][j].X.Min, p.figs[i][j].Y.Max-p.figs[i][j].Y.Min
					assert.InEpsilon(t, float64(tc.side), float64(d.Max.X-d.Min.X)/nu, 0.03, "[%d,%d] width of a square", i, j)
					assert.InEpsilon(t, float64(tc.side), float64(d.Max.Y-d.Min.Y)/nm, 0.03, "[%d,%d] height of a square", i, j)
				}
			}
		})
	}
}

// The colour scales reach at least 1.01 and 0.99: an overrun of a
// thousandth is painted pale, not as deep as the worst.
func TestHeatScaleFloor(t *testing.T) {
	cs := cells()[:1]
	cs[0].EWCET, cs[0].PWCET1 = 1.001, 0.994
	e, pw := heatScalesOf(cs)
	assert.Equal(t, 1.01, e.max)
	assert.Equal(t, 0.99, pw.min)
	cs[0].EWCET, cs[0].PWCET1 = 1.3, 0.8
	e, pw = heatScalesOf(cs)
	assert.Equal(t, 1.3, e.max, "the worst cell, past the floor")
	assert.Equal(t, 0.8, pw.min)
}
