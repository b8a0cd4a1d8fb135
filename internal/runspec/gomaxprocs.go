package runspec

import "math"

// The --gomaxprocs rules computed from the slice's quota, as two libraries
// compute them, so that a sweep over both shows what each does to a Go
// program at a fractional quota.
const (
	// RuleFloor is uber-go/automaxprocs': floor(quota/period), at least 1
	// (no quota: the CPUs).
	RuleFloor = "floor"
	// RuleCeil is Go ≥ 1.25's default: ceil(quota/period), at least 2,
	// at most the CPUs (no quota: the CPUs). The JVM's active processor
	// count is the same ceil without the 2.
	RuleCeil = "ceil"
)

// RuleGOMAXPROCS is rule's GOMAXPROCS for a cgroup whose quota allows
// cpus CPUs (+Inf: no quota) on a machine where ncpu CPUs are usable.
func RuleGOMAXPROCS(rule string, cpus float64, ncpu int) int {
	ncpu = max(ncpu, 1)
	if math.IsInf(cpus, 1) || cpus <= 0 {
		return ncpu
	}
	switch rule {
	case RuleFloor:
		return max(1, int(math.Floor(cpus)))
	case RuleCeil:
		if ncpu == 1 {
			return 1
		}
		return min(ncpu, max(2, int(math.Ceil(cpus))))
	}
	return 0
}
