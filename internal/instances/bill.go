package instances

import (
	"time"

	"github.com/throttlebench/throttlebench/internal/report"
)

// GB is the gigabyte of a GB-second as function platforms price it: 1024
// MB of 1024² bytes (a 128 MB function is 0.125 GB).
const GB = 1 << 30

// BilledRequest is one served request as a per-request bill sees it.
type BilledRequest struct {
	// Duration is what the platform times: the request's service, from
	// the start of its work to the end of its wait.
	Duration time.Duration
	// MemoryBytes is the memory the instance that served it is billed
	// for: its measured peak RSS (a platform bills the memory configured,
	// which must be at least that).
	MemoryBytes int64
}

// Bill is what the same run would cost under the two ways of billing:
// the result's own type (report.Bill), filled here.
type Bill = report.Bill

// Share is the CPU share an instance is billed for: quota/period, or
// numCPU when there is no quota.
func Share(quota, period time.Duration, numCPU int) float64 {
	if quota <= 0 || period <= 0 {
		return float64(numCPU)
	}
	return float64(quota) / float64(period)
}

// RoundUp is d rounded up to a whole number of granules, at least one: a
// platform bills every request at least its granularity. A granularity
// of 0 or less leaves d as it is.
func RoundUp(d, granularity time.Duration) time.Duration {
	if granularity <= 0 {
		return d
	}
	n := (d + granularity - 1) / granularity
	return max(n, 1) * granularity
}

// Compute is the bill of requests served and instances that lived, with
// the request durations rounded up to granularity and each instance
// allowed share CPUs (quota/period).
func Compute(reqs []BilledRequest, lifetimes []time.Duration, granularity time.Duration, share float64) Bill {
	var b Bill
	var reqNs, lifeNs int64
	for _, r := range reqs {
		d := RoundUp(max(r.Duration, 0), granularity)
		reqNs += int64(d)
		b.RequestGBs += d.Seconds() * float64(r.MemoryBytes) / GB
	}
	for _, l := range lifetimes {
		lifeNs += int64(max(l, 0))
	}
	b.RequestMs = float64(reqNs) / 1e6
	b.InstanceMs = float64(lifeNs) / 1e6
	b.InstanceCPUs = float64(lifeNs) / 1e9 * share
	b.CPUShare = share
	return b
}
