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
// not at all: the usage of every interval, the same at 1 s, and the limit;
// below it, on the same time axis, the cgroup's CPU pressure in each
// interval where it was read (v2).
func SaveUsage(path string, f usage.File) error {
	return usagePicture(f).save(path)
}

func usagePicture(f usage.File) picture {
	if p := pressurePanel(f); p != nil {
		return stack(10*vg.Inch, 8*vg.Inch, []*panel{usagePanel(f), p})
	}
	return stack(10*vg.Inch, 5*vg.Inch, []*panel{usagePanel(f)})
}

// pressurePanel is the share of each interval the cgroup was under CPU
// pressure (some, full: cpu.pressure's growth over the interval's span),
// at the interval's middle as the usage is; nil where it was not read.
func pressurePanel(f usage.File) *panel {
	if f.PressureSomeMs == nil || len(f.TMs) == 0 {
		return nil
	}
	p := &panel{
		title: "cpu.pressure: the share of each interval some (at least one) or all of the cgroup's threads waited, for a CPU or its quota",
		x:     axis{label: "time (s)"},
		y:     axis{label: "pressure (% of the interval)"},
	}
	hi := 0.0
	for i, s := range []struct {
		name string
		v    []float64
	}{{"some", f.PressureSomeMs}, {"full", f.PressureFullMs}} {
		if s.v == nil {
			continue
		}
		var pts plotter.XYs
		prev := 0.0
		for j, at := range f.TMs {
			if span := at - prev; span > 0 {
				y := 100 * s.v[j] / span
				pts = append(pts, plotter.XY{X: (prev + at) / 2000, Y: y})
				hi = max(hi, y)
			}
			prev = at
		}
		l := newLine(s.name, pts, i, false)
		l.Width = vg.Points(0.75)
		p.lines = append(p.lines, l)
	}
	p.x.min, p.x.max = widen(0, f.TMs[len(f.TMs)-1]/1000)
	p.y.min, p.y.max = widen(0, max(hi*1.05, 1))
	return p
}

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
