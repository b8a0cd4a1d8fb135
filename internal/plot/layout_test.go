package plot

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// everyPicture is one picture of each kind the package draws, at the sizes
// the commands make them: a sweep, latency over rates and over CPUs, a
// usage trace, traces of 0.3 s, 1 s, 3 s and 10 s windows, heat maps of
// one cell and of several.
func everyPicture(t *testing.T) map[string]picture {
	t.Helper()
	pics := map[string]picture{}
	c, err := Build(sampleRows(), "throttlebench sweep on a-rather-long-hostname (AMD EPYC 7B13 64-Core Processor, kernel 6.18.44-fc-v669, 64 CPUs)")
	require.NoError(t, err)
	pics["sweep"] = c.picture()
	one, err := Build([]sweep.Row{row("1", "0.5", 0.5, 90)}, "t")
	require.NoError(t, err)
	pics["sweep of one"] = one.picture()
	lr, err := latencyPicture(latencyOverRates())
	require.NoError(t, err)
	pics["latency over rates"] = lr
	lc, err := latencyPicture(latencyOverCPUs())
	require.NoError(t, err)
	pics["latency over CPUs"] = lc
	pics["usage"] = usagePicture(usageFile(2))
	for _, window := range []float64{0.3, 1, 3, 10} {
		p, err := timelinePicture(traceOf(window), "throttlebench latency --trace: cpus=0.5 work=8ms rate=50")
		require.NoError(t, err)
		pics[fmt.Sprintf("trace of %g s", window)] = p
	}
	for name, cs := range map[string][]model.Cell{"heat map": cells(), "heat map of one cell": cells()[:1]} {
		p, err := simulationPicture(cs)
		require.NoError(t, err)
		pics[name] = p
	}
	return pics
}

// traceOf is a window of that many seconds: a request every 20 ms, the
// throttles of two CPUs alternating, 40 ms in every 100 ms, the requests
// in them slowed by up to 200 ms (the top of the panel).
func traceOf(seconds float64) throttle.Trace {
	const ms = int64(1e6)
	t0 := int64(7e9)
	n := int64(seconds * 1000)
	tr := throttle.Trace{T0: t0, T1: t0 + n*ms, What: "request"}
	for a := int64(0); a < n; a += 100 {
		tr.Events = append(tr.Events, throttle.Event{CPU: int(a/100) % 2, Start: t0 + (a+50)*ms, End: t0 + (a+90)*ms})
	}
	for a := int64(0); a < n; a += 20 {
		d := 8 * ms
		if a%100 >= 50 && a%100 < 90 {
			d += 200 * ms * (a % 100) / 100
		}
		tr.Spans = append(tr.Spans, throttle.Span{Start: t0 + a*ms, End: t0 + a*ms + d, CPU: -1})
	}
	return tr
}

// laidOut is a picture laid out on a canvas of its size.
func laidOut(p picture) (draw.Canvas, [][]draw.Canvas) {
	dc := draw.New(vgimg.New(p.w, p.h))
	return dc, p.layout(dc)
}

// pointsOf are the data points of what a legend entry names.
func pointsOf(th plot.Thumbnailer) plotter.XYs {
	switch v := th.(type) {
	case *plotter.Line:
		return v.XYs
	case *plotter.Scatter:
		return v.XYs
	case *plotter.Polygon:
		var all plotter.XYs
		for _, r := range v.XYs {
			all = append(all, r...)
		}
		return all
	}
	return nil
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// The legend of every chart is above its data area, under its title, whole
// inside the picture (its samples were cut at the right edge), its entries
// apart; no data point lies under it.
func TestLegendsLieOffTheData(t *testing.T) {
	for name, p := range everyPicture(t) {
		t.Run(name, func(t *testing.T) {
			whole, cs := laidOut(p)
			for i, row := range cs {
				for j, c := range row {
					f := p.figs[i][j]
					data := f.DataCanvas(c)
					titleBottom := c.Max.Y - f.Title.TextStyle.Rectangle(f.Title.Text).Size().Y
					boxes := f.legendBoxes(c)
					var rects []vg.Rectangle
					for _, b := range boxes {
						box := vg.Rectangle{Min: b.thumb.Min, Max: b.text.Max}
						box.Min.Y, box.Max.Y = min(b.thumb.Min.Y, b.text.Min.Y), max(b.thumb.Max.Y, b.text.Max.Y)
						assert.GreaterOrEqual(t, box.Min.Y, data.Max.Y, "%s: above the data area", b.entry.text)
						assert.LessOrEqual(t, box.Max.Y, titleBottom, "%s: under the title", b.entry.text)
						assert.GreaterOrEqual(t, box.Min.X, whole.Min.X, "%s: inside the picture", b.entry.text)
						assert.LessOrEqual(t, box.Max.X, whole.Max.X, "%s: its sample and text inside the picture", b.entry.text)
						for _, r := range rects {
							assert.False(t, overlaps(r, box), "%s: apart from the other entries", b.entry.text)
						}
						rects = append(rects, box)
						for _, th := range b.entry.thumbs {
							for _, pt := range pointsOf(th) {
								x, y := data.X(f.X.Norm(pt.X)), data.Y(f.Y.Norm(pt.Y))
								for _, r := range rects {
									assert.False(t, x >= r.Min.X && x <= r.Max.X && y >= r.Min.Y && y <= r.Max.Y,
										"%s: point %v under the legend", b.entry.text, pt)
								}
								assert.True(t, pt.Y >= f.Y.Min && pt.Y <= f.Y.Max, "%s: point %v inside the y range", b.entry.text, pt)
							}
						}
					}
				}
			}
		})
	}
}

// The tick labels of every axis of every chart are each written once,
// none on another, and as many as a reader needs (at least 3 on a number
// axis).
func TestTickLabelsAreDistinctAndApart(t *testing.T) {
	for name, p := range everyPicture(t) {
		t.Run(name, func(t *testing.T) {
			_, cs := laidOut(p)
			for i, row := range cs {
				for j, c := range row {
					f := p.figs[i][j]
					data := f.DataCanvas(c)
					for _, ax := range []struct {
						name string
						a    *plot.Axis
						pos  func(float64) vg.Length
						size func(string) vg.Length
					}{
						{"x", &f.X, func(v float64) vg.Length { return data.X(f.X.Norm(v)) }, f.X.Tick.Label.Width},
						{"y", &f.Y, func(v float64) vg.Length { return data.Y(f.Y.Norm(v)) }, f.Y.Tick.Label.Height},
					} {
						type span struct{ lo, hi vg.Length }
						var labels []string
						var spans []span
						for _, tk := range ax.a.Tick.Marker.Ticks(ax.a.Min, ax.a.Max) {
							if tk.Label == "" || tk.Value < ax.a.Min || tk.Value > ax.a.Max {
								continue
							}
							labels = append(labels, tk.Label)
							at, half := ax.pos(tk.Value), ax.size(tk.Label)/2
							spans = append(spans, span{at - half, at + half})
						}
						sorted := slices.Clone(labels)
						slices.Sort(sorted)
						assert.Len(t, slices.Compact(sorted), len(labels), "%s %s axis [%d,%d]: each label once: %v", name, ax.name, i, j, labels)
						slices.SortFunc(spans, func(a, b span) int { return compare(float64(a.lo), float64(b.lo)) })
						for k := 1; k < len(spans); k++ {
							assert.Less(t, spans[k-1].hi, spans[k].lo, "%s %s axis [%d,%d]: labels apart: %v", name, ax.name, i, j, labels)
						}
						if _, ok := ax.a.Tick.Marker.(plot.ConstantTicks); !ok {
							assert.GreaterOrEqual(t, len(labels), 3, "%s %s axis [%d,%d]: %v", name, ax.name, i, j, labels)
						}
					}
				}
			}
		})
	}
}

// The top panel of a trace marks the throttles in a strip along its
// bottom, below the data's zero, labelled "throttled": not bands behind
// the points, which read as bars of data.
func TestTimelineThrottleStrip(t *testing.T) {
	for _, window := range []float64{0.3, 1, 3, 10} {
		p, err := timelinePicture(traceOf(window), "t")
		require.NoError(t, err)
		top := p.figs[0][0]
		var strip *plotter.Polygon
		for _, row := range top.legend {
			for _, e := range row {
				if e.text == "throttled (any CPU)" {
					strip = e.thumbs[0].(*plotter.Polygon)
				}
			}
		}
		require.NotNil(t, strip, "the strip has a legend entry")
		require.NotEmpty(t, strip.XYs)
		for _, pt := range pointsOf(strip) {
			assert.Less(t, pt.Y, 0.0, "the strip lies below the data's zero")
			assert.GreaterOrEqual(t, pt.Y, top.Y.Min)
		}
		var labels []string
		for _, tk := range top.Y.Tick.Marker.Ticks(top.Y.Min, top.Y.Max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
				if tk.Label != "throttled" {
					assert.GreaterOrEqual(t, tk.Value, 0.0, "no negative response time on the axis")
				}
			}
		}
		assert.Contains(t, labels, "throttled")
		assert.Equal(t, "0", labels[1], "the values start at 0, above the strip")
		assert.InDelta(t, 0, top.X.Min, 0.1*window, "the window from its start")
	}
}

// A long title is broken at its spaces to fit, never cut at the edges.
func TestFitText(t *testing.T) {
	sty := plot.New().Title.TextStyle
	long := "throttlebench sweep on a-rather-long-hostname (AMD EPYC 7B13 64-Core Processor, kernel 6.18.44-fc-v669, 64 CPUs)\nmean iteration duration"
	w := 4 * vg.Inch
	got := fitText(sty, long, w)
	assert.Greater(t, len(sty.Handler.Lines(got)), 2)
	for _, l := range sty.Handler.Lines(got) {
		assert.LessOrEqual(t, sty.Width(l), w, l)
	}
	assert.Equal(t, "short title", fitText(sty, "short title", w))
	assert.Equal(t, long, fitText(sty, long, 0))
}
