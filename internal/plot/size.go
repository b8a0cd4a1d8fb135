package plot

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SizeArm is one limited arm of a size search as its chart draws it.
type SizeArm struct {
	CPUs float64
	// Figures are its counted windows' figures (ms), Passes their verdicts.
	Figures []float64
	Passes  []bool
	// Contended marks the windows whose work waited for CPUs others held
	// (their contention block): ringed on the chart.
	Contended []bool
}

// SizeChart is size's --plot: the figure against the quota.
type SizeChart struct {
	Title, Stat string // Stat names the figure: "p99"
	Arms        []SizeArm
	// BoundMs is the target; NaN where unknown (no line).
	BoundMs float64
	// PassCPUs and FailCPUs are the bracket's ends, nil for none.
	PassCPUs, FailCPUs *float64
}

// SaveSize draws size's search into path (.svg or .png): every window's
// figure against its level's CPUs (passing and failing windows apart),
// the target as a dashed line, and the bracket's two levels as verticals.
func SaveSize(path string, c SizeChart) error {
	p, err := sizePanel(c)
	if err != nil {
		return err
	}
	return stack(9*vg.Inch, 6*vg.Inch, []*panel{p}).save(path)
}

func sizePanel(c SizeChart) (*panel, error) {
	var pass, fail, contended plotter.XYs
	var xs, ys []float64
	for _, a := range c.Arms {
		for i, f := range a.Figures {
			pt := plotter.XY{X: a.CPUs, Y: f}
			if a.Passes[i] {
				pass = append(pass, pt)
			} else {
				fail = append(fail, pt)
			}
			if i < len(a.Contended) && a.Contended[i] {
				contended = append(contended, pt)
			}
			xs, ys = append(xs, a.CPUs), append(ys, f)
		}
	}
	if len(xs) == 0 {
		return nil, errors.New("nothing to plot: no level's window was counted")
	}
	if !math.IsNaN(c.BoundMs) {
		ys = append(ys, c.BoundMs)
	}
	p := &panel{title: c.Title, x: axis{label: "CPU limit (quota / period, CPUs)"}, y: axis{label: c.Stat + " of a window (ms)"}}
	// Room either side: the grid's ends hold points and the bracket's lines.
	xlo, xhi := widen(slices.Min(xs), slices.Max(xs))
	pad := 0.05 * (xhi - xlo)
	p.x.min, p.x.max = xlo-pad, xhi+pad
	p.y.fitTimes(slices.Min(ys), slices.Max(ys))
	p.lines = append(p.lines, dotsOnly(newLine("window met the target", pass, 0, true)), dotsOnly(newLine("window missed it", fail, 1, true)))
	if len(contended) > 0 {
		// A ring around the window's own marker: measured under contention.
		ring := dotsOnly(newLine("contended: the window's work waited for CPUs others held", contended, 5, true))
		ring.marks.Shape, ring.marks.Radius = draw.RingGlyph{}, 2*ring.marks.Radius
		p.lines = append(p.lines, ring)
	}
	if !math.IsNaN(c.BoundMs) {
		target := newLine(fmt.Sprintf("target: %s ≤ %.4g ms", c.Stat, c.BoundMs), plotter.XYs{{X: p.x.min, Y: c.BoundMs}, {X: p.x.max, Y: c.BoundMs}}, 2, false)
		target.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.lines = append(p.lines, target)
	}
	for i, end := range []struct {
		label string
		cpus  *float64
	}{{"smallest passing level", c.PassCPUs}, {"the level below, not passing", c.FailCPUs}} {
		if end.cpus != nil {
			v := newLine(fmt.Sprintf("%s: %.4g CPUs", end.label, *end.cpus), plotter.XYs{{X: *end.cpus, Y: p.y.min}, {X: *end.cpus, Y: p.y.max}}, 3+i, false)
			p.lines = append(p.lines, v)
		}
	}
	return p, nil
}

// dotsOnly is l's markers without the polyline through them: windows at
// one level are not a series.
func dotsOnly(l line) line {
	l.LineStyle.Width = 0
	return l
}
