// Package throttle turns the kernel's throttle events into what a result
// says of them: when the traced cgroup's threads were held off a CPU by
// throttling, for how long, and which requests and iterations that hit.
// It is pure: the events come from internal/tracer (eBPF) or from tests.
package throttle

// Event is one stretch in which a thread of the traced cgroup was held off
// a CPU while its run queue there was throttled: from the moment it was
// switched out, still runnable, with its cfs_rq throttled, to the moment it
// ran again. Times are CLOCK_MONOTONIC nanoseconds, the clock requests and
// iterations are stamped on.
type Event struct {
	CPU   int   // the CPU whose run queue was throttled
	TID   int32 // the thread held off
	Start int64 // switched out, ns
	End   int64 // ran again, ns
}
