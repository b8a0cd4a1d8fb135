package plot

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

func row(workers, cpus string, eff, mean float64) sweep.Row {
	r := &report.Report{DurationsMs: []float64{mean * 0.8, mean, mean * 1.2}}
	r.Cgroup.EffectiveCPUs = eff
	r.Stats.MeanMs = mean
	f := 0.5
	r.Throttling.ThrottledFraction = &f
	return sweep.Row{Config: sweepConfig(workers, cpus), Report: r}
}

func sweepConfig(workers, cpus string) sweep.Config {
	return sweep.Config{{Flag: "workers", Value: workers}, {Flag: "cpus", Value: cpus}}
}

func sampleRows() []sweep.Row {
	return []sweep.Row{
		row("1", "0.1", 0.1, 450), row("1", "0.5", 0.5, 90), row("1", "1", 1, 45),
		row("2", "0.1", 0.1, 900), row("2", "0.5", 0.5, 180), row("2", "1", 1, 90),
		{Config: sweepConfig("2", "2"), Skipped: "no"},
	}
}

func TestBuildGroupsSeriesByTheOtherSettings(t *testing.T) {
	c, err := Build(sampleRows(), "t")
	require.NoError(t, err)
	require.Len(t, c.Series, 2)
	assert.Equal(t, "workers=1", c.Series[0].Label)
	assert.Equal(t, []float64{0.1, 0.5, 1}, c.Series[1].X)
	assert.Equal(t, []float64{900, 180, 90}, c.Series[1].Mean)
	assert.InDelta(t, 0.09, c.Series[1].Cost[0], 1e-9, "0.1 CPUs × 900 ms")
	assert.Contains(t, c.XLabel, "CPU share")
	assert.InDelta(t, 900*0.84, c.Series[1].Lo[0], 1e-9, "p10 of {720, 900, 1080}")
}

func TestBuildWithoutResults(t *testing.T) {
	_, err := Build([]sweep.Row{{Skipped: "x"}}, "t")
	assert.Error(t, err)
}

// A sweep over workers alone: the x axis becomes --workers.
func TestBuildPicksTheVaryingAxis(t *testing.T) {
	rows := []sweep.Row{row("1", "0.5", 0.5, 90), row("2", "0.5", 0.5, 180)}
	c, err := Build(rows, "t")
	require.NoError(t, err)
	assert.Equal(t, "--workers", c.XLabel)
	require.Len(t, c.Series, 1)
	assert.Equal(t, []float64{1, 2}, c.Series[0].X)
}

func TestSaveSVG(t *testing.T) {
	c, err := Build(sampleRows(), "sweep on testhost")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "sweep.svg")
	require.NoError(t, Save(path, c))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	// Well-formed XML with an <svg> root.
	dec := xml.NewDecoder(bytes.NewReader(data))
	var root string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	assert.Equal(t, "svg", root)
	// Each of the three panels has a legend entry per series.
	s := string(data)
	assert.Equal(t, 3, strings.Count(s, ">workers=1<"))
	assert.Equal(t, 3, strings.Count(s, ">workers=2<"))
	assert.Contains(t, s, "sweep on testhost")
	assert.Contains(t, s, "mean iteration duration (ms)")
}

func TestSavePNG(t *testing.T) {
	c, err := Build(sampleRows(), "t")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "sweep.png")
	require.NoError(t, Save(path, c))
	img := decodePNG(t, path)
	assert.Equal(t, 960, img.Bounds().Dx())
}

// decodePNG reads path as a PNG image, failing the test if it is not one.
func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	return img
}

func TestSaveRejectsOtherFormats(t *testing.T) {
	c, _ := Build(sampleRows(), "t")
	assert.Error(t, Save(filepath.Join(t.TempDir(), "x.pdf"), c))
}

// A log axis is labelled at 1, 2 and 5 times the powers of ten that it
// shows, not at the decades alone.
func TestTicks125(t *testing.T) {
	var ls []string
	for _, tk := range ticks125.Ticks(36, 1944) {
		if tk.Label != "" && tk.Value >= 36 && tk.Value <= 1944 {
			ls = append(ls, tk.Label)
		}
	}
	assert.Equal(t, []string{"50", "100", "200", "500", "1000"}, ls)
}

// A linear axis is labelled at the multiples of a step of 1, 2 or 5 times a
// power of ten, each with the step's decimals, however long the range: the
// windows of a trace (0.3 s to 10 s), a sweep's shares, a usage of 0 to 2.5
// CPUs (which plot.DefaultTicks labelled 0.00 and 2.50 alone).
func TestLinearTicks(t *testing.T) {
	labels := func(tk plot.Ticker, lo, hi float64) []string {
		var ls []string
		for _, x := range tk.Ticks(lo, hi) {
			if x.Label != "" {
				ls = append(ls, x.Label)
			}
		}
		return ls
	}
	assert.Equal(t, []string{"0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"}, labels(linearTicks(8), 0.2, 1))
	assert.Equal(t, []string{"0.00", "0.05", "0.10", "0.15", "0.20", "0.25", "0.30", "0.35"}, labels(linearTicks(10), 0, 0.36))
	assert.Equal(t, []string{"0.0", "0.5", "1.0", "1.5", "2.0", "2.5", "3.0"}, labels(linearTicks(10), 0, 3.04))
	assert.Equal(t, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}, labels(linearTicks(6), 0, 1.02), "a fraction")
	assert.Equal(t, []string{"0.0", "0.5", "1.0", "1.5", "2.0", "2.5"}, labels(linearTicks(5), 0, 2.6))
	assert.Equal(t, []string{"0", "50", "100", "150", "200", "250"}, labels(linearTicks(5), 0, 286))
	for _, r := range [][2]float64{{0, 0.3}, {0, 0.86}, {0, 1.05}, {0, 3.04}, {0, 10.2}, {0, 345}, {0.1, 1}, {0, 0.0937}, {-0.02, 1.02}, {0, 1e-4}, {17, 1234567}} {
		for _, n := range []int{5, 8, 10} {
			ls := labels(linearTicks(n), r[0], r[1])
			// The nearest of 1, 2, 5: at worst 2.5 times too few or many.
			assert.GreaterOrEqual(t, float64(len(ls)), float64(n)/2.5, "%v / %d: %v", r, n, ls)
			assert.LessOrEqual(t, float64(len(ls)), float64(n)*1.6, "%v / %d: %v", r, n, ls)
			assert.Len(t, slices.Compact(slices.Clone(ls)), len(ls), "%v: every label once: %v", r, ls)
			assert.NotContains(t, ls, "-0")
		}
	}
}

// The sweep's mean duration spans decades: a log axis; the cost does not.
func TestPanelsLogScale(t *testing.T) {
	c, err := Build(sampleRows(), "t")
	require.NoError(t, err)
	p := c.panels()
	assert.True(t, p[0].y.log, "45 ms to 1080 ms")
	assert.False(t, p[1].y.log)
	_, isLog := p[0].plot(7 * vg.Inch).Y.Scale.(plot.LogScale)
	assert.True(t, isLog)
	require.Len(t, p[0].bands, 2, "a p10–p90 band per series")
	assert.Equal(t, "workers=2", p[2].lines[1].label)
}

// One face is embedded: every text of the picture is in it.
func TestSVGUsesOneFont(t *testing.T) {
	c, err := Build(sampleRows(), "t")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "sweep.svg")
	require.NoError(t, Save(path, c))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(data)
	assert.Equal(t, strings.Count(s, "<text"), strings.Count(s, "font-family:Liberation Serif;font-variant:normal;font-weight:normal;font-style:normal"))
}

// A sweep that measured one configuration, with no throttling counted, still
// draws: the ranges of one value get some width, empty panels stay empty.
func TestSaveOneConfiguration(t *testing.T) {
	r := row("1", "0.5", 0.5, 90)
	r.Report.Throttling.ThrottledFraction = nil
	c, err := Build([]sweep.Row{r}, "t")
	require.NoError(t, err)
	for _, name := range []string{"one.png", "one.svg"} {
		path := filepath.Join(t.TempDir(), name)
		require.NoError(t, Save(path, c))
		st, err := os.Stat(path)
		require.NoError(t, err)
		assert.Positive(t, st.Size())
	}
	p := c.panels()
	assert.True(t, strings.HasSuffix(p[2].plot(7*vg.Inch).Title.Text, "(not reported)"), "the throttled fraction's empty panel says why")
	assert.Less(t, p[0].x.min, 0.5)
	assert.Greater(t, p[0].x.max, 0.5)
}

// Results collected from a cluster: one line per node, the title names
// the nodes.
func TestBuildSplitsByNode(t *testing.T) {
	var rows []sweep.Row
	for _, node := range []string{"node-a", "node-b"} {
		for _, cpus := range []float64{0.25, 0.5, 1} {
			r := &report.Report{DurationsMs: []float64{100 / cpus}}
			r.Cgroup.EffectiveCPUs = cpus
			r.Stats.MeanMs = 100 / cpus
			r.Host.Node = node
			rows = append(rows, sweep.Row{Config: sweep.Config{{Flag: "node", Value: node}, {Flag: "cpus", Value: fmt.Sprint(cpus)}}, Report: r})
		}
	}
	c, err := Build(rows, Title(rows))
	require.NoError(t, err)
	require.Len(t, c.Series, 2)
	assert.Equal(t, []string{"node=node-a", "node=node-b"}, []string{c.Series[0].Label, c.Series[1].Label})
	assert.Equal(t, []float64{0.25, 0.5, 1}, c.Series[1].X)
	assert.Equal(t, "throttlebench sweep on 2 nodes (node-a, node-b)", c.Title)
	assert.Equal(t, "throttlebench sweep on node node-a (, kernel , 0 CPUs)", Title(rows[:1]))
}

// An unlimited arm beside limited ones (--cpus 0.5,1,max) is a point of the
// same line at the CPUs it could use, labelled "max" in every panel where
// it is drawn (issue 33).
func TestBuildMarksTheUnlimitedArm(t *testing.T) {
	rows := []sweep.Row{row("1", "0.5", 0.5, 90), row("1", "1", 1, 45), row("1", "max", 2, 44)}
	rows[0].Report.Cgroup.QuotaUs, rows[1].Report.Cgroup.QuotaUs, rows[2].Report.Cgroup.QuotaUs = 50000, 100000, -1
	rows[2].Report.Throttling.ThrottledFraction = nil // no quota, no periods
	c, err := Build(rows, "t")
	require.NoError(t, err)
	require.Len(t, c.Series, 1, "one line, the unlimited arm on it")
	assert.Equal(t, []float64{0.5, 1, 2}, c.Series[0].X)
	assert.Equal(t, []bool{false, false, true}, c.Series[0].Unlimited)
	assert.Contains(t, c.XLabel, "max: the CPUs an unlimited slice may use")

	path := filepath.Join(t.TempDir(), "max.svg")
	require.NoError(t, Save(path, c))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(data), ">max<"), "mean and cost panels; the throttled panel has no point for it")

	// Unlimited alone (a sweep over workers without limits): no label.
	for i := range rows {
		rows[i].Report.Cgroup.QuotaUs = -1
	}
	c, err = Build(rows, "t")
	require.NoError(t, err)
	assert.NotContains(t, c.Series[0].Unlimited, true)
}

// A point whose work waited for CPUs others held is labelled "contended"
// in every panel where it is drawn, beside "max" where it is both.
func TestBuildMarksContendedPoints(t *testing.T) {
	rows := []sweep.Row{row("1", "0.5", 0.5, 90), row("1", "1", 1, 45), row("1", "max", 2, 44)}
	rows[0].Report.Cgroup.QuotaUs, rows[1].Report.Cgroup.QuotaUs, rows[2].Report.Cgroup.QuotaUs = 50000, 100000, -1
	rows[1].Report.Contention = &report.Contention{WaitShare: 0.3, Contended: true}
	rows[2].Report.Contention = &report.Contention{WaitShare: 0.4, Contended: true}
	rows[0].Report.Contention = &report.Contention{WaitShare: 0.01}
	c, err := Build(rows, "t")
	require.NoError(t, err)
	assert.Equal(t, []bool{false, true, true}, c.Series[0].Contended)
	assert.Contains(t, c.XLabel, "contended: the work waited for CPUs others held")
	l := maxLabels(c.Series[0], c.Series[0].Mean)
	require.NotNil(t, l)
	assert.Equal(t, []string{"contended", "max, contended"}, l.Labels)
}
