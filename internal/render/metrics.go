package render

import (
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/stats"
)

// metricsConfidence is the confidence of a run's median interval, that of
// latency's percentiles (report.LatencyCI95).
const metricsConfidence = 0.95

// RunMetrics are reports as the figures CI tools keep: the median
// iteration with its 95% interval (distribution-free, as compare's and
// benchstat's), the CPU time per iteration, which moves with the code and
// hardly with the machine's other load, and the throttled fraction.
func RunMetrics(reports []*report.Report) []Metric {
	var ms []Metric
	for _, r := range reports {
		name := strings.TrimPrefix(GobenchName(r), "Benchmark")
		extra := Extra(limitLines(RunConfig(r)))
		m := Metric{Name: name, Measure: "median_ms", Unit: "ms", Value: r.Stats.P50Ms, Extra: extra}
		m.Lower, m.Upper = medianInterval(r.DurationsMs, r.Stats.P50Ms)
		ms = addMetric(ms, m)
		if cpu := r.Model.CPUMsPerIteration; cpu > 0 {
			ms = addMetric(ms, Metric{Name: name, Measure: "cpu_per_iteration_ms", Unit: "ms", Value: cpu, Extra: extra})
		}
		if f := r.Throttling.ThrottledFraction; f != nil {
			ms = addMetric(ms, Metric{Name: name, Measure: "throttled_fraction", Unit: "fraction", Value: *f, Extra: extra})
		}
	}
	return ms
}

// LatencyMetrics are latency results as the figures CI tools keep: each
// of p50, p90, p99, p99.9 and the mean in ms, the percentiles with their
// 95% interval where the result has one (p90 never does). A configuration
// where no request completed has none.
func LatencyMetrics(reports []*report.Latency) []Metric {
	var ms []Metric
	for _, r := range reports {
		l := r.LatencyMs
		if l.None {
			continue
		}
		name := strings.TrimPrefix(LatencyGobenchName(r), "Benchmark")
		extra := Extra(limitLines(LatencyConfig(r)))
		var ci report.LatencyCI95
		if r.LatencyMsCI95 != nil {
			ci = *r.LatencyMsCI95
		}
		for _, f := range []struct {
			measure string
			v       float64
			ci      *[2]float64
		}{{"p50_ms", l.P50, ci.P50}, {"p90_ms", l.P90, nil}, {"p99_ms", l.P99, ci.P99}, {"p999_ms", l.P999, ci.P999}, {"mean_ms", l.Mean, nil}} {
			m := Metric{Name: name, Measure: f.measure, Unit: "ms", Value: f.v, Extra: extra}
			if f.ci != nil && f.ci[0] <= f.v && f.v <= f.ci[1] {
				m.Lower, m.Upper = &f.ci[0], &f.ci[1]
			}
			ms = addMetric(ms, m)
		}
	}
	return ms
}

// medianInterval is the distribution-free 95% interval of the median of
// xs, the order statistics stats.QuantileCI ranks; nil with too few (under
// 6) or where it does not hold the median given.
func medianInterval(xs []float64, median float64) (lo, hi *float64) {
	lr, hr, ok := stats.QuantileCI(len(xs), 0.5, metricsConfidence)
	if !ok {
		return nil, nil
	}
	sorted := slices.Sorted(slices.Values(xs))
	a, b := sorted[lr-1], sorted[hr-1]
	if !(a <= median && median <= b) {
		return nil, nil
	}
	return &a, &b
}

// limitLines are a configuration's lines without the machine's own (goos,
// goarch, cpu, go): the short configuration an Extra says.
func limitLines(lines []ConfigLine) []ConfigLine {
	return slices.DeleteFunc(slices.Clone(lines), func(l ConfigLine) bool {
		return slices.Contains([]string{"goos", "goarch", "cpu", "go"}, l.Key)
	})
}
