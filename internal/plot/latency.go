package plot

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/words"
)

// SaveLatency draws throttlebench latency's rows into path (.svg or .png):
// p99 (solid) and p50 (dashed) response times against the rate, or the CPU
// share when the rate does not vary, one colour per value of the other
// swept parameters (the burst, in an A/B).
func SaveLatency(path string, rows []latency.Row) error {
	pic, err := latencyPicture(rows)
	if err != nil {
		return err
	}
	return pic.save(path)
}

func latencyPicture(rows []latency.Row) (picture, error) {
	p, err := latencyPanel(rows)
	if err != nil {
		return picture{}, err
	}
	if c := causesByConfig(rows, p); c != nil {
		return stack(9*vg.Inch, 9*vg.Inch, []*panel{p, c}), nil
	}
	return stack(9*vg.Inch, 6*vg.Inch, []*panel{p}), nil
}

// causesByConfig is, under the latency panel lat and on its x axis, each
// traced configuration's p99 response time split by what its p99
// requests spent their time on (their breakdown's shares), a stacked bar
// per configuration; nil where none was split (no --trace).
func causesByConfig(rows []latency.Row, lat *panel) *panel {
	type bar struct {
		x, p99 float64
		shares [4]float64
	}
	var ran []latency.Row
	for _, r := range rows {
		if r.Report != nil {
			ran = append(ran, r)
		}
	}
	if len(ran) == 0 {
		return nil
	}
	flag, _ := latencyAxis(ran)
	var bars []bar
	xs := map[float64]int{} // bars at each x, placed side by side
	for _, r := range ran {
		if r.Report.RequestThrottles == nil || r.Report.Breakdown == nil || r.Report.LatencyMs.None {
			continue
		}
		s := r.Report.Breakdown.P99Share
		x := latencyX(flag, r)
		bars = append(bars, bar{x: x, p99: r.Report.LatencyMs.P99, shares: [4]float64{s.OnCPU, s.Held, s.Waiting, s.OffCPU}})
		xs[x]++
	}
	if len(bars) == 0 {
		return nil
	}
	// Each x's bars share 0.6 of the least gap between two xs (of the
	// axis' width where there is one x).
	gap := lat.x.max - lat.x.min
	keys := slices.Sorted(maps.Keys(xs))
	for i := 1; i < len(keys); i++ {
		gap = min(gap, keys[i]-keys[i-1])
	}
	p := &panel{title: "what the p99 requests spent their time on: p99 response time split by their shares",
		x: lat.x, y: axis{label: "p99 response time (ms)"}}
	polys := make([]*plotter.Polygon, len(causeColors))
	for k, c := range causeColors {
		polys[k] = &plotter.Polygon{Color: c.color}
	}
	placed := map[float64]int{}
	hi := 0.0
	for _, b := range bars {
		w := 0.6 * gap / float64(xs[b.x])
		left := b.x - 0.3*gap + w*float64(placed[b.x])
		placed[b.x]++
		y := 0.0
		for k, c := range causeColors {
			h := b.shares[c.cause] * b.p99
			if h > 0 {
				polys[k].XYs = append(polys[k].XYs, plotter.XYs{{X: left, Y: y}, {X: left + w, Y: y}, {X: left + w, Y: y + h}, {X: left, Y: y + h}})
			}
			y += h
		}
		hi = max(hi, y)
	}
	for k, c := range causeColors {
		if len(polys[k].XYs) > 0 {
			p.bands = append(p.bands, polys[k])
		}
		p.keys = append(p.keys, legendEntry{c.cause.String(), []plot.Thumbnailer{polys[k]}})
	}
	p.y.min, p.y.max = 0, max(hi*1.05, 1)
	return p
}

func latencyPanel(rows []latency.Row) (*panel, error) {
	var ran []latency.Row
	for _, r := range rows {
		if r.Report != nil {
			ran = append(ran, r)
		}
	}
	if len(ran) == 0 {
		return nil, errors.New("nothing to plot: every configuration was skipped")
	}
	xFlag, xLabel := latencyAxis(ran)
	x := func(r latency.Row) float64 { return latencyX(xFlag, r) }
	// One series per combination of the other swept values.
	type series struct {
		label string
		pts   []latency.Row
	}
	var all []*series
	byLabel := map[string]*series{}
	for _, r := range ran {
		var parts []string
		for _, p := range r.Config {
			if p.Flag == xFlag || (xFlag == "" && isShare(p.Flag, "")) || !latencyVaries(ran, p.Flag) {
				continue
			}
			parts = append(parts, p.Flag+"="+p.Value)
		}
		label := strings.Join(parts, " ")
		s := byLabel[label]
		if s == nil {
			s = &series{label: label}
			byLabel[label] = s
			all = append(all, s)
		}
		s.pts = append(s.pts, r)
	}
	p := &panel{
		title: latencyTitle(ran[0].Report.Config, xFlag == "") + "\nresponse time from the scheduled arrival: p99 solid, p50 dashed",
		x:     axis{label: xLabel},
		y:     axis{label: "response time (ms)"},
	}
	// An unlimited arm (--cpus max) beside limited ones sits at the CPUs
	// it could use, the right end, labelled "max" above its p99, as in
	// sweep's chart.
	markMax := xFlag == "" && slices.ContainsFunc(ran, func(r latency.Row) bool { return r.Report.Cgroup.QuotaUs >= 0 })
	var marked plotter.XYs
	var marks []string
	var xs, ys []float64
	for i, s := range all {
		slices.SortStableFunc(s.pts, func(a, b latency.Row) int { return compare(x(a), x(b)) })
		name := s.label
		if name != "" {
			name += " "
		}
		var p99, p50 plotter.XYs
		for _, r := range s.pts {
			l := r.Report.LatencyMs
			if l.None {
				continue // no response: no point, never one at 0
			}
			p99 = append(p99, plotter.XY{X: x(r), Y: l.P99})
			c := r.Report.Contention
			if t := pointLabel(markMax && r.Report.Cgroup.QuotaUs < 0, c != nil && c.Contended); t != "" {
				marked, marks = append(marked, plotter.XY{X: x(r), Y: l.P99}), append(marks, t)
			}
			p50 = append(p50, plotter.XY{X: x(r), Y: l.P50})
			xs = append(xs, x(r))
			ys = append(ys, l.P99, l.P50)
		}
		dashed := newLine(name+"p50", p50, i, true)
		dashed.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		// Filled markers: where a series is one point, the dashes do
		// not show which of the two is p50.
		dashed.marks.Shape = filled(dashed.marks.Shape)
		p.lines = append(p.lines, newLine(name+"p99", p99, i, true), dashed)
	}
	if len(xs) == 0 {
		return nil, errors.New("nothing to plot: no configuration had a response")
	}
	if l := labelsAbove(marked, marks); l != nil {
		p.labels = append(p.labels, l)
		if slices.ContainsFunc(marks, func(m string) bool { return strings.HasPrefix(m, "max") }) {
			p.x.label += "; max: the CPUs an unlimited slice may use"
		}
		if slices.ContainsFunc(marks, func(m string) bool { return strings.HasSuffix(m, "contended") }) {
			p.x.label += "; contended: the work waited for CPUs others held"
		}
	}
	p.x.min, p.x.max = widen(slices.Min(xs), slices.Max(xs))
	p.y.fitTimes(slices.Min(ys), slices.Max(ys))
	return p, nil
}

// latencyTitle says what every point shares: for the built-in workload
// its arrivals, work and workers; for --target the URL, the server and
// the arrivals (and the rate, when it is not the x axis), none of the
// built-in workload's fields, which a target does not have.
func latencyTitle(c report.LatencyConfig, rateFixed bool) string {
	t := c.TargetConfig
	if t == nil {
		return fmt.Sprintf("throttlebench latency: %s arrivals, %g ms work per request, %s", c.Arrivals, c.WorkMs, words.N(c.Workers, "worker"))
	}
	rate := ""
	if rateFixed {
		rate = fmt.Sprintf(" at %g requests/s", c.Rate)
	}
	server := "a server already running"
	if len(t.Serve) > 0 {
		server = "server: " + words.Argv(t.Serve)
		if r := []rune(server); len(r) > 60 {
			server = string(r[:59]) + "…"
		}
	}
	return fmt.Sprintf("throttlebench latency --target %s %s: %s arrivals%s, %s", t.Method, t.Target, c.Arrivals, rate, server)
}

// latencyAxis is what the x axis of ran (the rows that ran) is: the
// offered rate where it varies; else the burst where it alone varies at
// one CPU share (a burst A/B at one limit: the CPU share would put every
// point at one x, on a 0.9–1.1 axis with burst in the legend alone, which
// users read as one point); else the CPU share (flag ""). It returns the
// swept flag on the axis and the axis' label.
func latencyAxis(ran []latency.Row) (flag, label string) {
	share := func(r latency.Row) float64 { return r.Report.Cgroup.EffectiveCPUs }
	switch {
	case latencyVaries(ran, "rate"):
		return "rate", "offered rate (requests/s)"
	case !slices.ContainsFunc(ran, func(r latency.Row) bool { return share(r) != share(ran[0]) }) && latencyVaries(ran, "burst"):
		cpus := "CPUs"
		if share(ran[0]) == 1 {
			cpus = "CPU"
		}
		return "burst", fmt.Sprintf("CPU burst (ms), at %g %s", share(ran[0]), cpus)
	}
	return "", "CPU share (effective CPUs)"
}

// latencyX is where row r sits on an x axis of the swept flag (latencyAxis).
func latencyX(flag string, r latency.Row) float64 {
	switch flag {
	case "rate":
		return r.Report.OfferedRPS
	case "burst":
		return float64(r.Report.Cgroup.BurstUs) / 1000
	}
	return r.Report.Cgroup.EffectiveCPUs
}

func latencyVaries(rows []latency.Row, flag string) bool {
	return slices.ContainsFunc(rows, func(r latency.Row) bool {
		return r.Config.Get(flag) != rows[0].Config.Get(flag)
	})
}

// filled is the filled form of a hollow marker shape (ring, square,
// triangle), the shape itself for the others.
func filled(g draw.GlyphDrawer) draw.GlyphDrawer {
	switch g.(type) {
	case draw.RingGlyph:
		return draw.CircleGlyph{}
	case draw.SquareGlyph:
		return draw.BoxGlyph{}
	case draw.TriangleGlyph:
		return draw.PyramidGlyph{}
	}
	return g
}
