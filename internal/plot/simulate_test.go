package plot

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	for _, title := range []string{"E[WCET], buffer 0", "E[WCET], buffer inf", "P(WCET = 1), buffer 0", "P(WCET = 1), buffer inf"} {
		assert.Equal(t, 1, strings.Count(s, title+"\n"), title)
	}
	assert.Equal(t, 4, strings.Count(s, "utilisation u\n"))
	assert.Equal(t, 4, strings.Count(s, "cgroups m\n"))
	assert.Contains(t, s, "1.360\n", "E[WCET] at m = 20, u = 0.9, buffer 0")
	assert.Equal(t, 8, strings.Count(s, "1.000\n"), "buffer inf: E[WCET] and P(WCET = 1) of 1 in its 4 squares each")
}

// A cell that is NaN is left blank; the others are drawn all the same.
func TestSaveSimulationNaN(t *testing.T) {
	cs := cells()
	cs[0].EWCET, cs[0].PWCET1 = math.NaN(), math.NaN()
	path := filepath.Join(t.TempDir(), "grid.png")
	require.NoError(t, SaveSimulation(path, cs))
	img := decodePNG(t, path)
	assert.Equal(t, (2*9/2+1)*120, img.Bounds().Dx(), "4.5 in per buffer and 1 in, at 120 dpi")

	assert.Error(t, SaveSimulation(path, nil))
	assert.Error(t, SaveSimulation(filepath.Join(t.TempDir(), "x.pdf"), cells()))
}
