package plot

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

func sizeChart() SizeChart {
	pass, fail := 0.6, 0.4
	return SizeChart{Title: "size", Stat: "p99", BoundMs: 50, PassCPUs: &pass, FailCPUs: &fail, Arms: []SizeArm{
		{CPUs: 0.6, Figures: []float64{10, 12, 11}, Passes: []bool{true, true, true}},
		{CPUs: 0.4, Figures: []float64{200, 40}, Passes: []bool{false, true}},
	}}
}

// Each window is a point at its level, passing and failing apart; the
// target is a horizontal line, the bracket's ends verticals.
func TestSizePanel(t *testing.T) {
	p, err := sizePanel(sizeChart())
	require.NoError(t, err)
	require.Len(t, p.lines, 5)
	assert.Len(t, p.lines[0].XYs, 4, "windows that met the target")
	assert.Len(t, p.lines[1].XYs, 1, "the window that missed it")
	assert.Zero(t, p.lines[0].LineStyle.Width, "no polyline through windows")
	assert.Equal(t, 50.0, p.lines[2].XYs[0].Y)
	assert.Equal(t, 50.0, p.lines[2].XYs[1].Y)
	assert.Equal(t, 0.6, p.lines[3].XYs[0].X)
	assert.Equal(t, 0.4, p.lines[4].XYs[1].X)
	assert.True(t, p.y.log, "10 to 200 ms spans decades")

	c := sizeChart()
	c.BoundMs, c.FailCPUs = math.NaN(), nil
	p, err = sizePanel(c)
	require.NoError(t, err)
	assert.Len(t, p.lines, 3, "no target line, one bracket end")

	_, err = sizePanel(SizeChart{Stat: "p99", BoundMs: 50})
	assert.ErrorContains(t, err, "nothing to plot")
}

func TestSaveSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "size.svg")
	require.NoError(t, SaveSize(path, sizeChart()))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<svg")
}

// A window measured under contention is ringed, one more legend entry.
func TestSizePanelRingsContendedWindows(t *testing.T) {
	c := sizeChart()
	c.Arms[1].Contended = []bool{true, false}
	p, err := sizePanel(c)
	require.NoError(t, err)
	require.Len(t, p.lines, 6)
	ring := p.lines[2]
	assert.Contains(t, ring.label, "contended")
	assert.Equal(t, plotter.XYs{{X: 0.4, Y: 200}}, ring.XYs)
	assert.IsType(t, draw.RingGlyph{}, ring.marks.Shape)
}
