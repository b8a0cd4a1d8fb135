// Package plot draws the charts of a sweep with gonum/plot: mean iteration
// duration with its p10–p90 band, normalised cost, and throttled fraction,
// each against the swept CPU share, one line per other swept setting.
package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// Series is one line of every panel: the rows sharing all swept settings but
// the x axis.
type Series struct {
	Label        string
	X            []float64
	Mean, Lo, Hi []float64 // ms; Lo/Hi are p10/p90 of the iteration durations
	Cost         []float64 // CPU-seconds per iteration
	Throttled    []float64 // NaN where not reported
}

// Chart is what the picture shows.
type Chart struct {
	Title  string
	XLabel string
	Series []Series
}

// Build groups the measured rows of a sweep into series. The x axis is the
// effective CPU share when it varies, else the first swept setting that does.
func Build(rows []sweep.Row, title string) (Chart, error) {
	var done []sweep.Row
	for _, r := range rows {
		if r.Report != nil {
			done = append(done, r)
		}
	}
	if len(done) == 0 {
		return Chart{}, fmt.Errorf("nothing to plot: no configuration was measured")
	}
	xFlag, xLabel := xAxis(done)
	c := Chart{Title: title, XLabel: xLabel}
	index := map[string]int{}
	for _, r := range done {
		var parts []string
		for _, p := range r.Config {
			if p.Flag != xFlag && !isShare(p.Flag, xFlag) && varies(done, p.Flag) {
				parts = append(parts, p.Flag+"="+p.Value)
			}
		}
		label := strings.Join(parts, " ")
		if label == "" {
			label = "measured"
		}
		i, ok := index[label]
		if !ok {
			i = len(c.Series)
			index[label] = i
			c.Series = append(c.Series, Series{Label: label})
		}
		s := &c.Series[i]
		rep := r.Report
		sorted := slices.Sorted(slices.Values(rep.DurationsMs))
		s.X = append(s.X, xValue(r, xFlag))
		s.Mean = append(s.Mean, rep.Stats.MeanMs)
		s.Lo = append(s.Lo, stats.Quantile(sorted, 0.1))
		s.Hi = append(s.Hi, stats.Quantile(sorted, 0.9))
		s.Cost = append(s.Cost, sweep.CostCPUSeconds(rep))
		th := math.NaN()
		if f := rep.Throttling.ThrottledFraction; f != nil {
			th = *f
		}
		s.Throttled = append(s.Throttled, th)
	}
	return c, nil
}

// isShare says whether flag only restates the CPU share on the x axis.
func isShare(flag, xFlag string) bool {
	return xFlag == "" && (flag == "cpus" || flag == "quota")
}

func varies(rows []sweep.Row, flag string) bool {
	first := rows[0].Config.Get(flag)
	for _, r := range rows[1:] {
		if r.Config.Get(flag) != first {
			return true
		}
	}
	return false
}

// xAxis picks the x axis: "" stands for the effective CPU share.
func xAxis(rows []sweep.Row) (flag, label string) {
	first := rows[0].Report.Cgroup.EffectiveCPUs
	for _, r := range rows[1:] {
		if r.Report.Cgroup.EffectiveCPUs != first {
			return "", "CPU share (effective CPUs = quota/period)"
		}
	}
	for _, p := range rows[0].Config {
		if varies(rows, p.Flag) {
			if _, err := time.ParseDuration(p.Value); err == nil {
				return p.Flag, "--" + p.Flag + " (ms)"
			}
			return p.Flag, "--" + p.Flag
		}
	}
	return "", "CPU share (effective CPUs)"
}

func xValue(r sweep.Row, flag string) float64 {
	if flag == "" {
		return r.Report.Cgroup.EffectiveCPUs
	}
	v := r.Config.Get(flag)
	if d, err := time.ParseDuration(v); err == nil {
		return float64(d) / float64(time.Millisecond)
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	// A word (--gomaxprocs runtime): the value actually used.
	return float64(r.Report.Config.GOMAXPROCS)
}

// Save draws the chart into path; the extension (.svg or .png) picks the
// format. The file is written whole or not at all.
func Save(path string, c Chart) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("plot file %s: want .svg or .png", path)
	}
	plots, err := c.plots()
	if err != nil {
		return err
	}
	const w, h = 8 * vg.Inch, 12 * vg.Inch
	var canvas vg.CanvasWriterTo
	if ext == ".svg" {
		canvas = vgsvg.New(w, h)
	} else {
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(120), vgimg.UseBackgroundColor(color.White))}
	}
	dc := draw.New(canvas)
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: vg.Points(8), PadBottom: vg.Points(8), PadX: vg.Points(8), PadY: vg.Points(16)}
	for i, row := range plot.Align(grid, tiles, dc) {
		plots[i].Draw(row[0])
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := canvas.WriteTo(w)
		return err
	})
}

func (c Chart) plots() ([]*plot.Plot, error) {
	mean := newPlot(c.Title+"\nmean iteration duration, band p10–p90", c.XLabel, "mean iteration duration (ms)")
	// Durations fall as 1/share: a log scale keeps the fast end readable.
	logY := spread(c.Series, func(s Series) []float64 { return append(s.Lo, s.Hi...) }) >= 8
	if logY {
		mean.Y.Scale, mean.Y.Tick.Marker = plot.LogScale{}, ticks125{}
	}
	cost := newPlot("normalised cost: effective CPUs × mean duration", c.XLabel, "cost (CPU-seconds per iteration)")
	thr := newPlot("throttled fraction of CFS periods", c.XLabel, "nr_throttled / nr_periods")

	for i, s := range c.Series {
		col := plotutil.Color(i)
		if band := bandPolygon(s); band != nil {
			r, g, b, _ := col.RGBA()
			band.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 50}
			band.LineStyle.Width = 0
			mean.Add(band)
		}
		for _, panel := range []struct {
			p *plot.Plot
			y []float64
		}{{mean, s.Mean}, {cost, s.Cost}, {thr, s.Throttled}} {
			pts := points(s.X, panel.y)
			if len(pts) == 0 {
				continue
			}
			line, scatter, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, err
			}
			line.Color, scatter.Color = col, col
			scatter.Shape = plotutil.Shape(i)
			panel.p.Add(line, scatter)
			panel.p.Legend.Add(s.Label, line, scatter)
		}
	}
	plots := []*plot.Plot{mean, cost, thr}
	// Room around the data: the x extremes are not cut in half, and the
	// legend (top right) sits above the lines, not on them.
	for _, p := range plots {
		dx := (p.X.Max - p.X.Min) * 0.04
		p.X.Min, p.X.Max = p.X.Min-dx, p.X.Max+dx
	}
	cost.Y.Min = 0
	cost.Y.Max *= 1.25
	thr.Y.Min, thr.Y.Max = 0, 1.3
	if logY {
		mean.Y.Max *= 1.8
	} else {
		mean.Y.Min, mean.Y.Max = 0, mean.Y.Max*1.25
	}
	return plots, nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.XOffs = -vg.Points(12) // keep the line samples inside the picture
	p.Add(plotter.NewGrid())
	return p
}

// ticks125 labels a log axis at 1, 2 and 5 times the powers of ten: plot's
// LogTicks labels decades only, which leaves most sweeps with one label.
type ticks125 struct{}

func (ticks125) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= lo && v <= hi {
				ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return ts
}

// points pairs x and y, sorted by x, leaving out what was not measured.
func points(x, y []float64) plotter.XYs {
	var pts plotter.XYs
	for i := range x {
		if !math.IsNaN(y[i]) {
			pts = append(pts, plotter.XY{X: x[i], Y: y[i]})
		}
	}
	slices.SortFunc(pts, func(a, b plotter.XY) int { return compare(a.X, b.X) })
	return pts
}

func compare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// bandPolygon is the p10–p90 area: along Hi one way, back along Lo.
func bandPolygon(s Series) *plotter.Polygon {
	hi, lo := points(s.X, s.Hi), points(s.X, s.Lo)
	if len(hi) < 2 {
		return nil
	}
	ring := append(plotter.XYs{}, hi...)
	for i := len(lo) - 1; i >= 0; i-- {
		ring = append(ring, lo[i])
	}
	p, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil
	}
	return p
}

// spread is max/min of the positive values, for choosing a log scale.
func spread(series []Series, get func(Series) []float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, s := range series {
		for _, v := range get(s) {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi == 0 {
		return 1
	}
	return hi / lo
}
