package plot

import (
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/throttlebench/throttlebench/internal/usage"
)

// SaveUsage draws a sampled trace into path (.svg or .png), written whole or
// not at all: the usage of every interval, the same at 1 s, and the limit.
func SaveUsage(path string, f usage.File) error {
	return usagePicture(f).save(path)
}

func usagePicture(f usage.File) picture { return stack(10*vg.Inch, 5*vg.Inch, []*panel{usagePanel(f)}) }

// usagePanel puts the two views side by side on one time axis: the spikes
// the bandwidth controller sees per period, and the smooth line monitoring
// shows per second, which hides them.
func usagePanel(f usage.File) *panel {
	t := f.Trace()
	p := &panel{
		title: fmt.Sprintf("throttlebench sample: cgroup %s (v%d, %s), every %v", f.Cgroup.Path, f.Cgroup.Version, f.Cgroup.Counter, t.Interval),
		x:     axis{label: "time (s)"},
		y:     axis{label: "usage (CPUs)"},
	}
	if f.Interrupted {
		p.title += ", interrupted"
	}
	// Each interval's usage at its middle, so that it lines up with the
	// 1 s steps over the same readings.
	var fine plotter.XYs
	cpus := t.CPUs()
	for i, u := range cpus {
		fine = append(fine, plotter.XY{X: (t.Samples[i].At + t.Samples[i+1].At).Seconds() / 2, Y: u})
	}
	thin := newLine("per "+t.Interval.String(), fine, 2, false)
	thin.Width = vg.Points(0.5)
	p.lines = append(p.lines, thin)
	hi := maxOf(cpus)
	// Where an interval is a second or longer, the 1 s view is the same line.
	if k := t.Per(usage.CoarseWindow); k > 1 {
		c := t.Coarse(k)
		// A step per second: each second's usage from its start to its end.
		var steps plotter.XYs
		for i, u := range c.CPUs() {
			steps = append(steps, plotter.XY{X: c.Samples[i].At.Seconds(), Y: u})
		}
		if n := len(steps); n > 0 {
			steps = append(steps, plotter.XY{X: c.Samples[n].At.Seconds(), Y: steps[n-1].Y})
		}
		coarse := newLine("per "+c.Interval.String(), steps, 0, false)
		coarse.StepStyle = plotter.PostStep
		coarse.Width = vg.Points(2)
		p.lines = append(p.lines, coarse)
	}
	end := t.Samples[len(t.Samples)-1].At.Seconds()
	if f.LimitCPUs != nil {
		l := *f.LimitCPUs
		unit := " CPUs"
		if l == 1 {
			unit = " CPU"
		}
		limit := newLine("limit "+strconv.FormatFloat(l, 'g', -1, 64)+unit, plotter.XYs{{X: 0, Y: l}, {X: end, Y: l}}, 0, false)
		limit.Color = color.Black
		limit.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		p.lines = append(p.lines, limit)
		hi = max(hi, l)
	}
	p.x.min, p.x.max = widen(0, end)
	// A little room above the highest spike (the legend is above the data
	// area, not on it).
	p.y.min, p.y.max = widen(0, hi*1.05)
	return p
}

func maxOf(vs []float64) float64 {
	m := 0.0
	for _, v := range vs {
		m = max(m, v)
	}
	return m
}
