package bandwidth

import (
	"errors"
	"math"
	"time"
)

// ErrLimitsRefused says the kernel refused the limits written into a new
// slice: a combination it cannot take. A sweep skips that configuration
// and goes on.
var ErrLimitsRefused = errors.New("the kernel refused these limits")

// Unlimited is the Quota of a cgroup without a CPU bandwidth limit.
const Unlimited time.Duration = -1

// Limits are the CFS bandwidth settings of one cgroup.
type Limits struct {
	Period time.Duration // 0 when the cgroup has no bandwidth files
	Quota  time.Duration // Unlimited, or the runtime allowed per Period
	Burst  time.Duration // 0 when none is set or the kernel has no burst
}

// CPUs is the number of CPUs the quota allows, or +Inf when unlimited.
func (l Limits) CPUs() float64 {
	if l.Quota <= 0 || l.Period <= 0 {
		return math.Inf(1)
	}
	return float64(l.Quota) / float64(l.Period)
}
