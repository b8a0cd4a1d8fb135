package bandwidth

import (
	"math"
	"time"
)

// A number of CPUs becomes a quota per period in one of two ways, because
// two kinds of limit round differently:
//
//   - a limit the user gives (--cpus, size's --cpus-min, --cpus-max and
//     --step, the levels of size's grid, a usage rule's limit) is taken as
//     near as the kernel can: to the nearest whole microsecond, the unit of
//     cpu.max and cpu.cfs_quota_us (Quota, QuotaCPUs);
//   - a limit throttlebench advises (sample's advice, size's docker line) is
//     rounded up, first to a whole millicore, the finest step Kubernetes
//     and docker --cpus take, then to a whole microsecond (AdvisedQuota,
//     Millicores): a limit advised as enough must not be written as a
//     little less.
//
// usage.BurstCap stays apart on purpose: cpus × period to the nanosecond,
// the bound a replayed burst is held against rather than a quota written.

// Quota is a limit of cpus that the user gave, at period, as the kernel
// takes it: cpus × period rounded to the nearest whole microsecond (--cpus
// 0.3 is 30000µs per 100ms, where the float product is 29999.999…). The
// caller checks the range: cpus finite, the quota at least MinQuota.
func Quota(cpus float64, period time.Duration) time.Duration {
	return time.Duration(quotaUs(cpus, period)) * time.Microsecond
}

// QuotaCPUs is cpus as Quota writes it, in CPUs again: its whole
// microseconds over the period's. Unlike Quota it keeps an infinite cpus
// infinite.
func QuotaCPUs(cpus float64, period time.Duration) float64 {
	return quotaUs(cpus, period) / float64(period/time.Microsecond)
}

func quotaUs(cpus float64, period time.Duration) float64 {
	return math.Round(cpus * float64(period/time.Microsecond))
}

// AdvisedQuota is a limit of cpus that throttlebench advises, at period:
// cpus rounded up to a whole millicore (Millicores), then its quota up to
// a whole microsecond. It rounds up where Quota rounds to the nearest, so
// that the limit written is never below the one advised.
func AdvisedQuota(cpus float64, period time.Duration) time.Duration {
	us := int64(period / time.Microsecond)
	return time.Duration((Millicores(cpus)*us+999)/1000) * time.Microsecond
}

// Millicores is cpus rounded up to a whole millicore: the unit Kubernetes
// spells a CPU limit in, rounded up so that a limit advised as enough is not
// spelled as a little less. The 1e-6 keeps 1.05 (1050.0000000000002 as a
// float product) at 1050.
func Millicores(cpus float64) int64 { return int64(math.Ceil(cpus*1000 - 1e-6)) }
