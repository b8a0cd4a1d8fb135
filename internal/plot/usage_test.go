package plot

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"

	"github.com/throttlebench/throttlebench/internal/usage"
)

// usageFile is 2.5 s of 100 ms intervals at 0.5 CPUs with a 3-CPU spike in
// the fourth, judged against a 2-CPU limit.
func usageFile(limit float64) usage.File {
	tr := usage.Trace{Interval: 100 * time.Millisecond, Samples: []usage.Sample{{}}}
	var used time.Duration
	for i := range 25 {
		used += 50 * time.Millisecond
		if i == 3 {
			used += 250 * time.Millisecond
		}
		tr.Samples = append(tr.Samples, usage.Sample{At: time.Duration(i+1) * 100 * time.Millisecond, Usage: used})
	}
	return usage.Build(usage.Recording{Trace: tr}, usage.Meta{
		Cgroup: usage.CgroupInfo{Version: 2, Path: "/job.slice", Counter: "cpu.stat usage_usec"}, Limit: limit, Target: 0.01})
}

func TestUsagePanel(t *testing.T) {
	p := usagePanel(usageFile(2))
	assert.Contains(t, p.title, "/job.slice")
	assert.Contains(t, p.title, "every 100ms")
	require.Len(t, p.lines, 3)
	fine, coarse, limit := p.lines[0], p.lines[1], p.lines[2]
	assert.Equal(t, []string{"per 100ms", "per 1s", "limit 2 CPUs"}, []string{fine.label, coarse.label, limit.label})
	require.Len(t, fine.XYs, 25)
	assert.InDelta(t, 0.35, fine.XYs[3].X, 1e-9, "the spike at its interval's middle")
	assert.InDelta(t, 3, fine.XYs[3].Y, 1e-9)
	assert.Nil(t, fine.marks, "no markers on a trace")
	// Two full seconds, each a step from its start to its end; the last
	// half second makes no second.
	assert.Equal(t, plotter.PostStep, coarse.StepStyle)
	assert.Equal(t, xys(0, 0.75, 1, 0.5, 2, 0.5), roundXY(coarse.XYs))
	assert.Equal(t, xys(0, 2, 2.5, 2), limit.XYs)
	assert.NotEmpty(t, limit.Dashes, "the limit dashed")
	assert.Greater(t, p.y.max, 3.0, "the spike is inside the picture")
	assert.Equal(t, "limit 1 CPU", usagePanel(usageFile(1)).lines[2].label)
	assert.InDelta(t, 2.5, p.x.max, 1e-9)
}

func roundXY(pts plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, v := range pts {
		out[i] = plotter.XY{X: float64(int(v.X*1e6+0.5)) / 1e6, Y: float64(int(v.Y*1e6+0.5)) / 1e6}
	}
	return out
}

// Without --limit there is no limit line; with intervals of a second or
// more, no second line that would repeat the first.
func TestUsagePanelLeavesOutWhatItCannotShow(t *testing.T) {
	p := usagePanel(usageFile(0))
	assert.Len(t, p.lines, 2)
	f := usageFile(0)
	f.IntervalMs, f.TMs = 1000, []float64{1000, 2000}
	f.UsageCPUs = []float64{1, 2}
	p = usagePanel(f)
	require.Len(t, p.lines, 1)
	assert.Equal(t, "per 1s", p.lines[0].label)
}

func TestSaveUsageSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.svg")
	require.NoError(t, SaveUsage(path, usageFile(2)))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		XMLName xml.Name
	}
	require.NoError(t, xml.NewDecoder(bytes.NewReader(data)).Decode(&doc))
	assert.Equal(t, "svg", doc.XMLName.Local)
	s := string(data)
	for _, legend := range []string{">per 100ms<", ">per 1s<", ">limit 2 CPUs<", ">usage (CPUs)<", ">time (s)<"} {
		assert.Equal(t, 1, strings.Count(s, legend), legend)
	}
}

func TestSaveUsagePNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.png")
	require.NoError(t, SaveUsage(path, usageFile(2)))
	img := decodePNG(t, path)
	assert.Equal(t, 1200, img.Bounds().Dx())
}

// Where the pressure was read, a second panel on the same time axis: the
// share of each interval under some and full pressure, at the interval's
// middle; none where it was not (v1), and full left out where the kernel
// keeps some alone.
func TestUsagePressurePanel(t *testing.T) {
	assert.Nil(t, pressurePanel(usageFile(2)), "no pressure read")
	assert.Len(t, usagePicture(usageFile(2)).figs, 1)

	f := usageFile(2)
	f.PressureSomeMs, f.PressureFullMs = make([]float64, len(f.TMs)), make([]float64, len(f.TMs))
	f.PressureSomeMs[3], f.PressureFullMs[3] = 60, 25
	p := pressurePanel(f)
	require.NotNil(t, p)
	require.Len(t, p.lines, 2)
	some, full := p.lines[0], p.lines[1]
	assert.Equal(t, []string{"some", "full"}, []string{some.label, full.label})
	require.Len(t, some.XYs, 25)
	assert.InDelta(t, 0.35, some.XYs[3].X, 1e-9, "at its interval's middle, as the usage's spike")
	assert.InDelta(t, 60, some.XYs[3].Y, 1e-9, "60 ms of a 100 ms interval")
	assert.InDelta(t, 25, full.XYs[3].Y, 1e-9)
	assert.InDelta(t, 2.5, p.x.max, 1e-9, "the usage panel's time axis")
	assert.Greater(t, p.y.max, 60.0)
	assert.Len(t, usagePicture(f).figs, 2)

	f.PressureFullMs = nil
	require.Len(t, pressurePanel(f).lines, 1)

	path := filepath.Join(t.TempDir(), "usage.svg")
	require.NoError(t, SaveUsage(path, f))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), ">pressure (% of the interval)<")
}
