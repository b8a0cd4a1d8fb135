package usage

import (
	"math"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/config"
)

// BurstCap is the most burst the kernel accepts beside a limit of cpus at
// period: the quota per period (cpu.cfs_burst_us ≤ cpu.cfs_quota_us, and
// cpu.max.burst likewise), rounded to the nanosecond.
//
// It differs from bandwidth.Quota, the quota of a limit the user gives, on
// purpose: it is the bound a replayed burst (in nanoseconds) is held
// against, not a value written to the kernel, and sample's burst_cap_ms
// reports it unrounded. At a whole millicore and a period of whole
// milliseconds (what FitLimit and FitPeriod try) the two agree.
func BurstCap(cpus float64, period time.Duration) time.Duration {
	return time.Duration(math.Round(cpus * float64(period)))
}

// FitPeriod is the smallest period, in whole milliseconds, whose quota at a
// limit of cpus holds burst (burst ≤ cpus × period); false when even the
// kernel's longest period, 1 s, cannot. The replay that sized burst is the
// same at any period: the period only makes room for it.
func FitPeriod(burst time.Duration, cpus float64) (time.Duration, bool) {
	if cpus <= 0 {
		return 0, false
	}
	// Whole milliseconds: a flag value a person types; the 1e-9 keeps a
	// float product that is exact in decimal from rounding up a step.
	p := time.Duration(math.Ceil(float64(burst)/cpus/float64(time.Millisecond)-1e-9)) * time.Millisecond
	p = max(p, config.MinPeriod)
	if p > config.MaxPeriod {
		return 0, false
	}
	return p, true
}

// FitLimit is the smallest limit from `from` CPUs up, in whole millicores
// (Kubernetes' unit), at which the burst t needs fits under the quota per
// period: Burst(t, L) ≤ L × period. The burst shrinks as the limit grows and
// the quota grows with it, so the first limit that fits is found by
// bisection; it also returns the burst needed there. false when none up to
// MaxLimitCPUs does (a limit at the trace's peak needs no burst, so one
// always does where the peak is below that).
func FitLimit(t Trace, from float64, period time.Duration) (cpus float64, burst time.Duration, ok bool) {
	fits := func(m int64) bool { return Burst(t, milli(m)) <= BurstCap(milli(m), period) }
	lo := max(bandwidth.Millicores(from), 1)
	hi := int64(MaxLimitCPUs * 1000)
	if lo > hi || !fits(hi) {
		return 0, 0, false
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return milli(lo), Burst(t, milli(lo)), true
}

func milli(m int64) float64 { return float64(m) / 1000 }
