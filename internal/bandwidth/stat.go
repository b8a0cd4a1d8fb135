package bandwidth

import (
	"math"
	"time"
)

// CPUStat holds the kernel's CFS bandwidth counters of one cgroup, both
// versions normalised to time.Duration. A nil field is one the kernel does not
// report (an older kernel, a v2 cgroup without the cpu controller): we never
// invent a zero for it.
type CPUStat struct {
	NrPeriods     *uint64
	NrThrottled   *uint64
	ThrottledTime *time.Duration
	NrBursts      *uint64
	BurstTime     *time.Duration
}

// Sub returns the counters' change from before to s. A counter missing from
// either reading is missing from the result, and so is one that went
// backwards (the cgroup was removed and made anew in between): there is no
// true change to report for it.
func (s CPUStat) Sub(before CPUStat) CPUStat {
	u := func(a, b *uint64) *uint64 {
		if a == nil || b == nil || *a < *b {
			return nil
		}
		d := *a - *b
		return &d
	}
	d := func(a, b *time.Duration) *time.Duration {
		if a == nil || b == nil || *a < *b {
			return nil
		}
		v := *a - *b
		return &v
	}
	return CPUStat{
		NrPeriods:     u(s.NrPeriods, before.NrPeriods),
		NrThrottled:   u(s.NrThrottled, before.NrThrottled),
		ThrottledTime: d(s.ThrottledTime, before.ThrottledTime),
		NrBursts:      u(s.NrBursts, before.NrBursts),
		BurstTime:     d(s.BurstTime, before.BurstTime),
	}
}

// Add sums two groups' counters (a fleet's instances'); a counter one of
// them lacks is unknown in the sum.
func (s CPUStat) Add(o CPUStat) CPUStat {
	u := func(a, b *uint64) *uint64 {
		if a == nil || b == nil {
			return nil
		}
		v := *a + *b
		return &v
	}
	d := func(a, b *time.Duration) *time.Duration {
		if a == nil || b == nil {
			return nil
		}
		v := *a + *b
		return &v
	}
	return CPUStat{
		NrPeriods:     u(s.NrPeriods, o.NrPeriods),
		NrThrottled:   u(s.NrThrottled, o.NrThrottled),
		ThrottledTime: d(s.ThrottledTime, o.ThrottledTime),
		NrBursts:      u(s.NrBursts, o.NrBursts),
		BurstTime:     d(s.BurstTime, o.BurstTime),
	}
}

// Level is the limit found at one cgroup on the way from a leaf to the
// visible top of the hierarchy.
type Level struct {
	Dir    string
	Limits Limits
	// Weight is the cgroup's CPU weight on v2's scale (100 the kernel's
	// default; v1's cpu.shares × 100 / 1024): what it gets beside its
	// siblings when the CPUs are busy. 0 where it has none (the top).
	Weight int
}

// EffectiveCPUs is the tightest CPU limit over a chain of levels and the
// number of CPUs the process may run on (affinity, cpuset): what a CPU-bound
// group can use at most.
func EffectiveCPUs(chain []Level, cpusAllowed int) float64 {
	eff := math.Inf(1)
	if cpusAllowed > 0 {
		eff = float64(cpusAllowed)
	}
	for _, l := range chain {
		eff = math.Min(eff, l.Limits.CPUs())
	}
	return eff
}

// Group names one cgroup as a report shows it: its version, its path as
// the kernel names it (/proc/self/cgroup) and its directory on disk.
type Group struct {
	Version int
	Path    string
	Dir     string
}
