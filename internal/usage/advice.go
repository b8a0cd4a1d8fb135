package usage

import (
	"math"
	"slices"
	"time"

	"github.com/throttlebench/throttlebench/internal/stats"
)

// Summary describes a trace's per-interval usage, in CPUs.
type Summary struct {
	Window time.Duration // the nominal length of one interval
	stats.Summary
	// AboveLimit is the fraction of intervals whose usage exceeds the
	// limit: those in which a quota of that many CPUs would have throttled.
	// NaN without a limit.
	AboveLimit float64
}

// Summarize summarises t's intervals, with the share above limit (CPUs; 0
// for none).
func Summarize(t Trace, limit float64) Summary {
	cpus := t.CPUs()
	s := Summary{Window: t.Interval, Summary: stats.Summarize(cpus), AboveLimit: math.NaN()}
	if limit > 0 {
		s.AboveLimit = AboveFraction(cpus, limit)
	}
	return s
}

// AboveFraction is the fraction of cpus strictly above limit; 0 for none.
func AboveFraction(cpus []float64, limit float64) float64 {
	if len(cpus) == 0 {
		return 0
	}
	n := 0
	for _, c := range cpus {
		if c > limit {
			n++
		}
	}
	return float64(n) / float64(len(cpus))
}

// LimitFor is the smallest limit (CPUs) with at most a fraction target of
// cpus strictly above it: with n intervals, at most m = ⌊target·n⌋ may be
// above, so it is the (m+1)-th largest value, no interpolation. 0 when cpus
// is empty.
func LimitFor(cpus []float64, target float64) float64 {
	n := len(cpus)
	if n == 0 {
		return 0
	}
	sorted := slices.Clone(cpus)
	slices.Sort(sorted)
	m := min(int(math.Floor(target*float64(n))), n-1)
	return sorted[n-1-m]
}

// Burst is the smallest burst (CPU time) that lets a quota of limit CPUs
// absorb every spike of t: a token bucket of capacity B refilled with the
// unused quota of each interval (limit × the interval's span), drained by
// the usage above the quota, starting full (the cgroup had stayed below its
// limit before the trace). The bucket's deficit after interval i is
//
//	D[i] = max(0, D[i-1] + used[i] − limit × span[i]),  D[-1] = 0
//
// and a capacity absorbs everything exactly when it is at least every D[i]:
// Burst is max D[i], the most that usage exceeded the quota over any run of
// consecutive intervals. 0 when usage never exceeds the limit.
func Burst(t Trace, limit float64) time.Duration {
	var deficit, worst float64
	for i := range t.Len() {
		deficit = math.Max(0, deficit+float64(t.Used(i))-limit*float64(t.Span(i)))
		worst = math.Max(worst, deficit)
	}
	// Rounded to the nanosecond: limit × span is a float product, and a
	// burst the least bit short would not absorb the largest spike.
	return time.Duration(math.Ceil(worst - 1e-6))
}
