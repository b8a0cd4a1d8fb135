package plot

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// SaveTimeline draws a traced window into path (.svg or .png), written whole
// or not at all, so that one sees at a glance which requests (or
// iterations) the throttles hit. Above: each one as a point of its response
// time against its scheduled arrival (an iteration: its duration against
// its start), in seconds from the window's start, red where it overlapped a
// throttle, over a strip along the bottom that marks where any CPU was
// throttled. Below, on the same time axis: one lane per CPU with its
// throttled stretches.
func SaveTimeline(path string, tr throttle.Trace, title string) error {
	pic, err := timelinePicture(tr, title)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return pic.save(path)
}

// throttleColor is what was throttled, in both panels: gonum/plotutil's
// soft red, a lighter red than the markers of what met a throttle.
var throttleColor = plotutil.SoftColors[0]

// The top panel's throttled strip: below the data (which starts at 0), a
// share of the data's height, with a gap above it.
const (
	stripShare = 0.07
	stripGap   = 0.05
)

func timelinePicture(tr throttle.Trace, title string) (picture, error) {
	if len(tr.Spans) == 0 && len(tr.Events) == 0 {
		return picture{}, errors.New("nothing was traced to draw")
	}
	sec := func(ns int64) float64 { return float64(ns-tr.T0) / 1e9 }
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	end := max(sec(tr.T1), 0)
	for _, s := range tr.Spans {
		end = max(end, sec(s.End))
	}
	const w, h = 10 * vg.Inch, 7 * vg.Inch

	top := plot.New()
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
	hi = max(hi*1.05, 1)
	var legend []legendEntry
	// The union over CPUs of the throttled stretches: a strip along the
	// bottom, below the data's zero and labelled on the y axis, not bands
	// behind the points: grey bands up to a height read as bars of data.
	var ivs []throttle.Interval
	for _, e := range tr.Events {
		ivs = append(ivs, throttle.Interval{Start: e.Start, End: e.End})
	}
	stripTop, stripBottom := -stripGap*hi, -(stripGap+stripShare)*hi
	if u := throttle.Clip(throttle.Union(ivs), tr.T0, max(tr.T1, tr.T0)); len(u) > 0 {
		strip := &plotter.Polygon{Color: throttleColor}
		for _, iv := range u {
			a, b := sec(iv.Start), sec(iv.End)
			strip.XYs = append(strip.XYs, plotter.XYs{{X: a, Y: stripBottom}, {X: b, Y: stripBottom}, {X: b, Y: stripTop}, {X: a, Y: stripTop}})
		}
		top.Add(strip)
		legend = append(legend, legendEntry{"throttled (any CPU)", []plot.Thumbnailer{strip}})
	}
	for i, pts := range []struct {
		label string
		xys   plotter.XYs
		c     color.Color
	}{{what + "s that met no throttle", clear, seriesColor(0)}, {what + "s that met a throttle", hit, plotutil.DarkColors[0]}} {
		if len(pts.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts.xys)
		if err != nil {
			return picture{}, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = pts.c, plotutil.Shape(i), vg.Points(2)
		top.Add(sc)
		legend = append(legend, legendEntry{pts.label, []plot.Thumbnailer{sc}})
	}
	top.X.Min, top.X.Max = widen(0, end)
	top.Y.Min, top.Y.Max = stripBottom-stripGap*hi, hi
	top.X.Tick.Marker = linearTicks(10)
	top.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		// The values from 0 up, and the strip's name beside it.
		ts := []plot.Tick{{Value: (stripTop + stripBottom) / 2, Label: "throttled"}}
		for _, t := range linearTicks(6).Ticks(0, hi) {
			if t.Value >= 0 {
				ts = append(ts, t)
			}
		}
		return ts
	})

	lanes := plot.New()
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
		bar := &plotter.Polygon{Color: throttleColor}
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
	lanes.X.Tick.Marker = top.X.Tick.Marker
	lanes.Y.Min, lanes.Y.Max = -0.6, max(float64(len(cpus))-0.4, 0.6)

	figs := [][]*figure{{newFigure(top, title, legend, w-vg.Inch)}}
	if causes, legend := causesPanel(tr, sec, ms, top.X.Min, top.X.Max); causes != nil {
		figs = append(figs, []*figure{newFigure(causes, what+"s' time by cause (each a bar at its scheduled arrival)", legend, w-vg.Inch)})
	}
	figs = append(figs, []*figure{newFigure(lanes, "throttled stretches, per CPU", nil, w-vg.Inch)})
	return picture{w: w, h: h, tiles: stackTiles, figs: figs}, nil
}

// causeColors are the parts of a request's time, stacked from the
// bottom: on CPU, held by the quota (the throttled red of the other
// panels), waiting for a CPU, off CPU.
var causeColors = [...]struct {
	cause throttle.Cause
	color color.Color
}{
	{throttle.OnCPU, plotutil.SoftColors[2]},
	{throttle.Held, throttleColor},
	{throttle.Waiting, plotutil.SoftColors[4]},
	{throttle.OffCPU, color.Gray{Y: 0xb0}},
}

// causesPanel stacks each split span's time by cause, a bar at its start
// as wide as 0.8 of the mean gap between starts; nil where no span was
// split (a trace without the threads' states).
func causesPanel(tr throttle.Trace, sec func(int64) float64, ms func(int64) float64, xmin, xmax float64) (*plot.Plot, []legendEntry) {
	var split []int
	for i := range tr.Spans {
		if i < len(tr.Known) && tr.Known[i] {
			split = append(split, i)
		}
	}
	if len(split) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.X.Label.Text = "scheduled arrival (s from the start of the window)"
	p.Y.Label.Text = "time (ms)"
	p.Add(plotter.NewGrid())
	half := 0.4 * (xmax - xmin) / float64(len(split))
	bars := make([]*plotter.Polygon, len(causeColors))
	for k, c := range causeColors {
		bars[k] = &plotter.Polygon{Color: c.color}
	}
	hi := 0.0
	for _, i := range split {
		x, y := sec(tr.Spans[i].Start), 0.0
		for k, c := range causeColors {
			h := ms(tr.Parts[i][c.cause])
			if h > 0 {
				bars[k].XYs = append(bars[k].XYs, plotter.XYs{{X: x - half, Y: y}, {X: x + half, Y: y}, {X: x + half, Y: y + h}, {X: x - half, Y: y + h}})
			}
			y += h
		}
		hi = max(hi, y)
	}
	var legend []legendEntry
	for k, c := range causeColors {
		if len(bars[k].XYs) > 0 {
			p.Add(bars[k])
		}
		legend = append(legend, legendEntry{c.cause.String(), []plot.Thumbnailer{bars[k]}})
	}
	p.X.Min, p.X.Max = xmin, xmax
	p.X.Tick.Marker = linearTicks(10)
	p.Y.Min, p.Y.Max = 0, max(hi*1.05, 1)
	p.Y.Tick.Marker = linearTicks(6)
	return p, legend
}
