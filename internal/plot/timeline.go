package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// SaveTimeline draws a traced window into path (.svg or .png), written whole
// or not at all, so that one sees at a glance which requests (or
// iterations) the throttles hit. Above: each one as a point of its response
// time against its scheduled arrival (an iteration: its duration against
// its start), in seconds from the window's start, red where it overlapped a
// throttle, over grey bands where any CPU was throttled. Below, on the same
// time axis: one lane per CPU with its throttled stretches.
func SaveTimeline(path string, tr throttle.Trace, title string) error {
	if len(tr.Spans) == 0 && len(tr.Events) == 0 {
		return fmt.Errorf("plot %s: nothing was traced to draw", path)
	}
	sec := func(ns int64) float64 { return float64(ns-tr.T0) / 1e9 }
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	end := max(sec(tr.T1), 0)
	for _, s := range tr.Spans {
		end = max(end, sec(s.End))
	}

	top := plot.New()
	top.Title.Text = title
	what := cmp.Or(tr.What, "request")
	top.X.Label.Text = "scheduled arrival (s from the start of the window)"
	top.Y.Label.Text = "response time (ms)"
	if what == "iteration" {
		top.X.Label.Text, top.Y.Label.Text = "iteration start (s from the start of the window)", "iteration duration (ms)"
	}
	top.Add(plotter.NewGrid())
	overlap := throttle.Overlap(tr.Spans, tr.Events)
	var hit, clear plotter.XYs
	hi := 0.0
	for i, s := range tr.Spans {
		pt := plotter.XY{X: sec(s.Start), Y: ms(s.End - s.Start)}
		hi = max(hi, pt.Y)
		if overlap[i] > 0 {
			hit = append(hit, pt)
		} else {
			clear = append(clear, pt)
		}
	}
	hi = max(hi*1.15, 1)
	// The union over CPUs of the throttled stretches, as full-height bands
	// behind the points.
	var ivs []throttle.Interval
	for _, e := range tr.Events {
		ivs = append(ivs, throttle.Interval{Start: e.Start, End: e.End})
	}
	if u := throttle.Clip(throttle.Union(ivs), tr.T0, max(tr.T1, tr.T0)); len(u) > 0 {
		shade := &plotter.Polygon{Color: color.NRGBA{R: 128, G: 128, B: 128, A: 70}}
		for _, iv := range u {
			a, b := sec(iv.Start), sec(iv.End)
			shade.XYs = append(shade.XYs, plotter.XYs{{X: a, Y: 0}, {X: b, Y: 0}, {X: b, Y: hi}, {X: a, Y: hi}})
		}
		top.Add(shade)
		top.Legend.Add("throttled (any CPU)", shade)
	}
	for i, pts := range []struct {
		label string
		xys   plotter.XYs
		c     color.Color
	}{{what + "s that met no throttle", clear, plotutil.Color(1)}, {what + "s that met a throttle", hit, plotutil.Color(0)}} {
		if len(pts.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts.xys)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = pts.c, plotutil.Shape(i), vg.Points(2)
		top.Add(sc)
		top.Legend.Add(pts.label, sc)
	}
	top.Legend.Top = true
	top.X.Min, top.X.Max = widen(0, end)
	top.Y.Min, top.Y.Max = 0, hi*1.2 // room for the legend

	lanes := plot.New()
	lanes.Title.Text = "throttled stretches, per CPU"
	lanes.X.Label.Text = "time (s from the start of the window)"
	lanes.Y.Label.Text = "CPU"
	byCPU := map[int][]throttle.Interval{}
	for _, e := range tr.Events {
		byCPU[e.CPU] = append(byCPU[e.CPU], throttle.Interval{Start: e.Start, End: e.End})
	}
	cpus := make([]int, 0, len(byCPU))
	for c := range byCPU {
		cpus = append(cpus, c)
	}
	slices.Sort(cpus)
	var ticks []plot.Tick
	for lane, c := range cpus {
		bar := &plotter.Polygon{Color: plotutil.Color(0)}
		for _, iv := range throttle.Clip(throttle.Union(byCPU[c]), tr.T0, max(tr.T1, tr.T0)) {
			a, b, y := sec(iv.Start), sec(iv.End), float64(lane)
			bar.XYs = append(bar.XYs, plotter.XYs{{X: a, Y: y - 0.35}, {X: b, Y: y - 0.35}, {X: b, Y: y + 0.35}, {X: a, Y: y + 0.35}})
		}
		if len(bar.XYs) > 0 {
			lanes.Add(bar)
		}
		ticks = append(ticks, plot.Tick{Value: float64(lane), Label: fmt.Sprint(c)})
	}
	lanes.Y.Tick.Marker = plot.ConstantTicks(ticks)
	lanes.X.Min, lanes.X.Max = top.X.Min, top.X.Max
	lanes.Y.Min, lanes.Y.Max = -0.6, max(float64(len(cpus))-0.4, 0.6)

	return saveTiles(path, 10*vg.Inch, 7*vg.Inch, "", [][]*plot.Plot{{top}, {lanes}},
		draw.Tiles{PadTop: vg.Points(8), PadBottom: vg.Points(8), PadX: vg.Points(8), PadY: vg.Points(16), PadRight: vg.Points(12)})
}
