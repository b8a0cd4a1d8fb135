package build

import (
	"fmt"
	"math"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/table"
)

// ciConfidence is the confidence of latency's intervals.
const ciConfidence = 0.95

// The fewest responses with which a percentile has an interval at 95%
// (stats.QuantileCI): below them even the slowest response is not above
// the percentile with 97.5% confidence.
const (
	ciMinP99  = 368
	ciMinP999 = 3688
)

// ci95 is the 95% intervals of l's p50, p99 and p999 from histogram_hdr
// (every response time, ns): the order statistics QuantileCI ranks, the
// low one's bucket from its lowest value and the high one's to its
// highest, so that the histogram's 0.1% is inside; kept within the exact
// min and max, and around the figure itself (a percentile is its bucket's
// highest value). Nil where there are no response times or the histogram
// cannot be read.
func ci95(hist string, l report.LatencyMs) *report.LatencyCI95 {
	if hist == "" || l.None {
		return nil
	}
	h, err := hdrhistogram.Decode([]byte(hist))
	if err != nil || h.TotalCount() == 0 {
		return nil
	}
	bars := h.Distribution()
	// at is the bucket of the k-th smallest response time (1-based).
	at := func(k int) hdrhistogram.Bar {
		var seen int64
		for _, b := range bars {
			if seen += b.Count; seen >= int64(k) {
				return b
			}
		}
		return bars[len(bars)-1]
	}
	n := int(h.TotalCount())
	one := func(q, figure float64) *[2]float64 {
		lo, hi, ok := stats.QuantileCI(n, q, ciConfidence)
		if !ok {
			return nil
		}
		a, b := float64(at(lo).From)/1e6, float64(at(hi).To)/1e6
		a, b = max(min(a, figure), l.Min), min(max(b, figure), l.Max)
		return &[2]float64{a, b}
	}
	return &report.LatencyCI95{P50: one(0.5, l.P50), P99: one(0.99, l.P99), P999: one(0.999, l.P999)}
}

// fewForIntervals is the warning for percentiles with no interval: too
// few responses. It says the same for every run with as few, so that a
// list's rows share it (one footnote, said once).
func fewForIntervals(r *report.Latency) (report.Warning, bool) {
	if r.LatencyMs.None || r.Completed < 1 {
		return report.Warning{}, false
	}
	var none []string
	for _, f := range []struct {
		name string
		q    float64
	}{{"p50", 0.5}, {"p99", 0.99}, {"p99.9", 0.999}} {
		if _, _, ok := stats.QuantileCI(r.Completed, f.q, ciConfidence); !ok {
			none = append(none, f.name)
		}
	}
	if len(none) == 0 {
		return report.Warning{}, false
	}
	// p99.9 alone: the figures the table leads with (p50, p99) have their
	// intervals, and the table shows p99.9's as empty; said apart from
	// "few requests", which casts doubt on the run's headline figures
	// (a user called it crying wolf on every row of a 900-request run).
	if len(none) == 1 && none[0] == "p99.9" {
		return report.Warn(report.KindNoP999Interval, "no p99.9 interval: under %d responses p99.9 has no 95%% interval, so it is the max or next to it and says little more than max_ms; "+
			"p50 and p99 have theirs; for p99.9's, raise --rate or --duration", ciMinP999), true
	}
	return report.Warn(report.KindFewRequests, "few requests: %s %s no 95%% interval (under %d responses p99 has none, under %d p99.9): "+
		"even the slowest response is not surely above it, so it is the max or next to it and says little more; raise --rate or --duration",
		strings.Join(none, " and "), map[bool]string{true: "has", false: "have"}[len(none) == 1], ciMinP99, ciMinP999), true
}

// wideInterval is the warning for percentiles whose interval spans more
// than th.MaxIntervalWidth of them: what more requests, or more runs,
// would narrow the widest. An order statistic's spread shrinks as
// 1/√n, so k times the width asks about k² times the responses.
func wideInterval(r *report.Latency, th Thresholds) (string, bool) {
	ci := r.LatencyMsCI95
	if ci == nil || r.LatencyMs.None || th.MaxIntervalWidth <= 0 {
		return "", false
	}
	var wide []string
	worst := 0.0
	for _, f := range []struct {
		name   string
		figure float64
		ci     *[2]float64
	}{{"p50", r.LatencyMs.P50, ci.P50}, {"p99", r.LatencyMs.P99, ci.P99}, {"p99.9", r.LatencyMs.P999, ci.P999}} {
		if f.ci == nil || f.figure <= 0 {
			continue
		}
		rel := (f.ci[1] - f.ci[0]) / f.figure
		if rel > th.MaxIntervalWidth {
			wide = append(wide, fmt.Sprintf("%s %s has a 95%% interval of %s–%s, %.0f%% of it", f.name, table.MsSpaced(f.figure),
				table.MsSpaced(f.ci[0]), table.MsSpaced(f.ci[1]), 100*rel))
			worst = max(worst, rel)
		}
	}
	if len(wide) == 0 {
		return "", false
	}
	k := math.Ceil((worst / th.MaxIntervalWidth) * (worst / th.MaxIntervalWidth))
	more := fmt.Sprintf("about %.0f× the requests", k)
	if d := r.Config.DurationS; d > 0 {
		more += fmt.Sprintf(" (--duration %gs at this rate)", math.Ceil(d*k))
	}
	return fmt.Sprintf("wide interval: %s; an interval over %.0f%% of its figure cannot tell apart two figures a third apart, and %s would narrow it to that, "+
		"or %.0f runs with other --seed values, pooled: under a quota one throttled period stalls every request in it, so the requests of a run are not independent, "+
		"the interval is the least the figure is uncertain by, and runs are the independent units",
		strings.Join(wide, "; "), 100*th.MaxIntervalWidth, more, k), true
}
