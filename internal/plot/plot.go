package plot

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/throttlebench/throttlebench/internal/config"
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
	// Unlimited marks the points of configurations without a quota (--cpus
	// max, --quota max) beside limited ones on the share axis: each sits at
	// the CPUs it could use, the right end, and is labelled "max".
	Unlimited []bool
	// Contended marks the points whose work waited for CPUs others held
	// (the result's contention block): labelled "contended" above them.
	Contended []bool
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
	// An unlimited arm beside limited ones (--cpus 0.5,1,max) is a point
	// of the same line, not a reference line across the chart: it was
	// measured as the others were, with its spread and cost, and on the
	// share axis it has a true place, the CPUs it could use; the line runs
	// on to it, so one sees whether the last limit already reached it.
	limited := slices.ContainsFunc(done, func(r sweep.Row) bool { return r.Report.Cgroup.QuotaUs >= 0 })
	markMax := xFlag == "" && limited
	if markMax && slices.ContainsFunc(done, unlimited) {
		c.XLabel = "CPU share (effective CPUs = quota/period; max: the CPUs an unlimited slice may use)"
	}
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
		s.Unlimited = append(s.Unlimited, markMax && unlimited(r))
		s.Contended = append(s.Contended, rep.Contention != nil && rep.Contention.Contended)
	}
	for _, sr := range c.Series {
		if slices.Contains(sr.Contended, true) {
			c.XLabel += "; contended: the work waited for CPUs others held"
			break
		}
	}
	return c, nil
}

// unlimited says whether r ran without a quota.
func unlimited(r sweep.Row) bool { return r.Report.Cgroup.QuotaUs < 0 }

// isShare says whether flag only restates the CPU share on the x axis.
func isShare(flag, xFlag string) bool {
	p, _ := config.Lookup(flag)
	return xFlag == "" && p.Share
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
		// Only a parameter can be an axis: the node (results collected
		// from a cluster) names lines, never positions.
		if _, ok := config.Lookup(p.Flag); ok && varies(rows, p.Flag) {
			if param, _ := config.Lookup(p.Flag); param.Kind == config.Duration {
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
	return c.picture().save(path)
}

func (c Chart) picture() picture { return stack(8*vg.Inch, 12*vg.Inch, c.panels()) }

func (c Chart) panels() []*panel {
	mean := &panel{title: c.Title + "\nmean iteration duration, band p10–p90", y: axis{label: "mean iteration duration (ms)"}}
	// Durations fall as 1/share: a log scale keeps the fast end readable.
	mean.y.log = spread(c.Series, func(s Series) []float64 { return slices.Concat(s.Lo, s.Hi) }) >= 8
	cost := &panel{title: "normalised cost: effective CPUs × mean duration", y: axis{label: "cost (CPU-seconds per iteration)"}}
	thr := &panel{title: "throttled fraction of CFS periods", y: axis{label: "nr_throttled / nr_periods"}}
	panels := []*panel{mean, cost, thr}

	for i, s := range c.Series {
		if ring := bandRing(s); ring != nil {
			mean.bands = append(mean.bands, band(ring, i))
		}
		for _, panel := range []struct {
			p *panel
			y []float64
		}{{mean, s.Mean}, {cost, s.Cost}, {thr, s.Throttled}} {
			panel.p.lines = append(panel.p.lines, newLine(s.Label, points(s.X, panel.y), i, true))
			if l := maxLabels(s, panel.y); l != nil {
				panel.p.labels = append(panel.p.labels, l)
			}
		}
	}

	// Every panel shares the x axis (also one with nothing measured), with
	// a little room above the data for a marker (the legend is above the
	// data area, not on it).
	xlo, xhi := bounds(c.Series, func(s Series) []float64 { return s.X }, false)
	for _, p := range panels {
		p.x = axis{label: c.XLabel, min: xlo, max: xhi}
	}
	lo, hi := bounds(c.Series, func(s Series) []float64 { return slices.Concat(s.Mean, s.Lo, s.Hi) }, mean.y.log)
	if mean.y.log {
		mean.y.min, mean.y.max = lo/1.1, hi*1.15
	} else {
		mean.y.min, mean.y.max = 0, hi*1.05
	}
	_, hi = bounds(c.Series, func(s Series) []float64 { return s.Cost }, false)
	cost.y.min, cost.y.max = 0, hi*1.05
	// A fraction: no tick above 1 that it could never reach.
	thr.y.min, thr.y.max = 0, 1.02
	for _, p := range panels {
		p.y.min, p.y.max = widen(p.y.min, p.y.max)
	}
	return panels
}

// bounds is the range of the finite values (positive ones only, for a log
// axis); 0, 1 when there are none.
func bounds(series []Series, get func(Series) []float64, positive bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, v := range get(s) {
			if math.IsNaN(v) || math.IsInf(v, 0) || (positive && v <= 0) {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		return 0, 1
	}
	return widen(lo, hi)
}

// widen gives a range of one value (a single configuration, a cost of 0)
// some width, so that it can be drawn.
func widen(lo, hi float64) (float64, float64) {
	if lo < hi {
		return lo, hi
	}
	d := math.Abs(lo) * 0.1
	if d == 0 {
		d = 1
	}
	if lo > 0 && lo-d <= 0 {
		return lo / 2, hi + d // stays positive for a log axis
	}
	return lo - d, hi + d
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

// bandRing is the p10–p90 area: along Hi one way, back along Lo.
func bandRing(s Series) plotter.XYs {
	hi, lo := points(s.X, s.Hi), points(s.X, s.Lo)
	if len(hi) < 2 {
		return nil
	}
	ring := append(plotter.XYs{}, hi...)
	for i := len(lo) - 1; i >= 0; i-- {
		ring = append(ring, lo[i])
	}
	return ring
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

// maxLabels are the labels above s's points that are drawn (y not NaN):
// "max" at an unlimited point, "contended" where the work waited for CPUs
// others held, both where both; nil when there are none.
func maxLabels(s Series, y []float64) *plotter.Labels {
	var xys plotter.XYs
	var texts []string
	for i := range s.X {
		if math.IsNaN(y[i]) {
			continue
		}
		if t := pointLabel(i < len(s.Unlimited) && s.Unlimited[i], i < len(s.Contended) && s.Contended[i]); t != "" {
			xys = append(xys, plotter.XY{X: s.X[i], Y: y[i]})
			texts = append(texts, t)
		}
	}
	return labelsAbove(xys, texts)
}

// pointLabel is what a point says above it: "max" for an unlimited one
// beside limited ones, "contended" for one measured under contention.
func pointLabel(max, contended bool) string {
	switch {
	case max && contended:
		return "max, contended"
	case max:
		return "max"
	case contended:
		return "contended"
	}
	return ""
}

// labelsAbove are texts centred above the points xys; nil for none.
func labelsAbove(xys plotter.XYs, texts []string) *plotter.Labels {
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
	if err != nil {
		return nil // only for NaN or infinite points, left out above
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign = draw.XCenter
		l.TextStyle[i].YAlign = draw.YBottom
	}
	l.Offset = vg.Point{Y: vg.Points(5)}
	return l
}
