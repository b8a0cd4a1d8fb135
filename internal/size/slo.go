package size

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/stats"
)

// Metric is what a window measures, and so which statistics an SLO may
// bound.
type Metric int

const (
	// Durations: the built-in closed loop's iterations or a command's
	// runs (run's workloads, -- CMD), read from a report.Report.
	Durations Metric = iota
	// ResponseTimes: the open loop's and --target's requests, read from a
	// report.LatencyMs.
	ResponseTimes
)

// Allowed are the statistics an SLO may bound for windows that measure m,
// as written: those the window's result carries. report.Stats has mean,
// p50, p90 and p99; p95 (the issue's) is the same R-7 quantile of
// durations_ms. A response time's target is a percentile
// (report.LatencyMs: p50, p90, p99, p999), never its mean, which one
// stalled period barely moves.
func Allowed(m Metric) []string {
	if m == ResponseTimes {
		return []string{"p50", "p90", "p99", "p99.9"}
	}
	return []string{"mean", "p50", "p90", "p95", "p99"}
}

// maxFactor bounds a relative SLO: far beyond any useful one, small enough
// that a typo (12x for 1.2x) reads as one.
const maxFactor = 100

// SLO is a parsed --slo: a statistic of one window bounded from above,
// either by a duration or by a factor of the unlimited arm's same
// statistic.
type SLO struct {
	Stat   string // one of Allowed(Metric), as written: "p99", "p99.9", "mean"
	Metric Metric
	Strict bool          // "<" rather than "<="
	Limit  time.Duration // the absolute bound; 0 when relative
	Factor float64       // the bound as a factor of the unlimited arm's; 0 when absolute
}

// ParseSLO reads --slo for windows that measure m: p99<=50ms, mean<=1.2x;
// < is strictly less (Meets). Spaces around the parts and between a
// bound's number and its unit are allowed (p99 <= 50 ms), p999 reads as
// p99.9; bad input is a badinput.Error naming --slo, its value and what is
// allowed, and a bound without a unit says what it may have meant
// ("50ms?", "1.5ms or 1.5x?").
func ParseSLO(v string, m Metric) (SLO, error) {
	i := strings.IndexAny(v, "<>=")
	if i < 0 {
		return SLO{}, badinput.Errorf("slo", "invalid --slo %q: want a statistic, <= and a bound, such as p99<=50ms, or mean<=1.2x for 1.2 times the unlimited run's", v)
	}
	s := SLO{Stat: strings.ToLower(strings.TrimSpace(v[:i])), Metric: m}
	if s.Stat == "p999" {
		s.Stat = "p99.9"
	}
	if !slices.Contains(Allowed(m), s.Stat) {
		return SLO{}, badinput.Errorf("slo", "invalid --slo %q: %q is no statistic of %s; want one of %s", v, s.Stat, metricName(m), strings.Join(Allowed(m), ", "))
	}
	rest := v[i:]
	switch {
	case strings.HasPrefix(rest, "<="):
		rest = rest[2:]
	case strings.HasPrefix(rest, "<"):
		s.Strict, rest = true, rest[1:]
	default:
		return SLO{}, badinput.Errorf("slo", "invalid --slo %q: an SLO bounds %s from above; use <= (or <), as in %s<=50ms", v, s.Stat, s.Stat)
	}
	bound := strings.TrimSpace(rest)
	if fs := strings.Fields(bound); len(fs) == 2 && isNumber(fs[0]) && !strings.ContainsAny(fs[1], "0123456789.") {
		bound = fs[0] + fs[1] // "50 ms", "1.2 x": the number and its unit apart
	}
	if x, _ := strconv.ParseFloat(bound, 64); isNumber(bound) && x > 0 {
		return SLO{}, badinput.Errorf("slo", "invalid --slo %q: a bound needs a unit: %s", v, unitHint(bound))
	}
	if f, ok := strings.CutSuffix(bound, "x"); ok {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(x > 1 && x <= maxFactor) {
			return SLO{}, badinput.Errorf("slo", "invalid --slo %q: want a factor above 1 and at most %d, such as 1.2x (within 20%% of the unlimited run's %s); a limit never makes a program faster", v, maxFactor, s.Stat)
		}
		s.Factor = x
		return s, nil
	}
	d, err := time.ParseDuration(bound)
	if err != nil || d <= 0 {
		return SLO{}, badinput.Errorf("slo", "invalid --slo %q: want a bound above 0, a duration such as 50ms or a factor of the unlimited run's such as 1.2x", v)
	}
	s.Limit = d
	return s, nil
}

// isNumber says whether s is a plain decimal number: 50, 1.5, .5, 0.
func isNumber(s string) bool {
	if s == "" || strings.Trim(s, "0123456789.") != "" || strings.Count(s, ".") > 1 {
		return false
	}
	return strings.Trim(s, ".") != ""
}

// unitHint guesses what a bare bound n meant: a duration in ms, or, for a
// number a factor is likely to be (above 1, below maxHintFactor), that or
// a factor of the unlimited arm's: "50ms?", "1.5ms or 1.5x?".
func unitHint(n string) string {
	if x, _ := strconv.ParseFloat(n, 64); x > 1 && x < maxHintFactor {
		return n + "ms or " + n + "x?"
	}
	return n + "ms?"
}

// maxHintFactor is where a bare bound stops reading as a likely factor:
// 1.2 or 3 may be either, 50 is surely milliseconds.
const maxHintFactor = 10

func metricName(m Metric) string {
	if m == ResponseTimes {
		return "response times (the open loop, --target)"
	}
	return "durations (a command, the built-in closed loop)"
}

// String is s as --slo takes it, canonically: ParseSLO(s.String()) == s.
func (s SLO) String() string {
	op := "<="
	if s.Strict {
		op = "<"
	}
	if s.Relative() {
		return s.Stat + op + strconv.FormatFloat(s.Factor, 'f', -1, 64) + "x"
	}
	return s.Stat + op + s.Limit.String()
}

// Relative says whether the bound is a factor of the unlimited arm's.
func (s SLO) Relative() bool { return s.Factor > 0 }

// BoundMs is the bound in ms for a window: the absolute one, or the factor
// times unlimitedMs, the unlimited arm's figure of the same statistic (NaN
// when that is unknown: no figure, or none above 0).
func (s SLO) BoundMs(unlimitedMs float64) float64 {
	if !s.Relative() {
		return float64(s.Limit) / float64(time.Millisecond)
	}
	if !(unlimitedMs > 0) || math.IsInf(unlimitedMs, 0) {
		return math.NaN()
	}
	return s.Factor * unlimitedMs
}

// Meets judges one window: whether its figure (ms, of s.Stat) is within
// the bound. An unknown figure or bound (NaN: no request completed, no
// unlimited figure for a relative SLO) fails.
func (s SLO) Meets(figureMs, unlimitedMs float64) bool {
	b := s.BoundMs(unlimitedMs)
	if s.Strict {
		return figureMs < b
	}
	return figureMs <= b
}

// Slack is how far above the unlimited arm's figure the bound lies (the
// bound over unlimitedMs): how much slower than unlimited a window may be
// and pass. Below 1 no limit can pass; NaN when unknown.
func (s SLO) Slack(unlimitedMs float64) float64 {
	if s.Relative() {
		return s.Factor
	}
	if !(unlimitedMs > 0) {
		return math.NaN()
	}
	return s.BoundMs(unlimitedMs) / unlimitedMs
}

// FromRun is a closed-loop window's figure of s.Stat in ms, read from its
// result: report.Stats' mean_ms, p50_ms, p90_ms or p99_ms, and p95 the R-7
// quantile of durations_ms, as report/build computes the others. NaN for a
// window with no durations or a statistic durations do not have.
func (s SLO) FromRun(r report.Report) float64 {
	if r.Stats.N == 0 {
		return math.NaN()
	}
	switch s.Stat {
	case "mean":
		return r.Stats.MeanMs
	case "p50":
		return r.Stats.P50Ms
	case "p90":
		return r.Stats.P90Ms
	case "p95":
		sorted := slices.Clone(r.DurationsMs)
		slices.Sort(sorted)
		return stats.Quantile(sorted, 0.95)
	case "p99":
		return r.Stats.P99Ms
	}
	return math.NaN()
}

// FromLatency is an open-loop window's figure of s.Stat in ms, read from
// its response times (report.Latency's latency_ms). NaN when no request
// completed or for a statistic response times are not bounded by.
func (s SLO) FromLatency(l report.LatencyMs) float64 {
	if l.None {
		return math.NaN()
	}
	switch s.Stat {
	case "p50":
		return l.P50
	case "p90":
		return l.P90
	case "p99":
		return l.P99
	case "p99.9":
		return l.P999
	}
	return math.NaN()
}
