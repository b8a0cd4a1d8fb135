package throttle

import "github.com/throttlebench/throttlebench/internal/report"

// What this package computes is kept in a result: its types are the
// result schema's, under the names this package uses.
type (
	Summary     = report.ThrottleEvents
	DurationMs  = report.EventDurationsMs
	CPU         = report.CPUEvents
	Agreement   = report.ThrottleAgreement
	Truncation  = report.ThrottleTruncation
	DroppedCPU  = report.DroppedCPU
	Requests    = report.RequestThrottles
	ThrottledMs = report.ThrottledMs
	Request     = report.P99Request
	LatencyMs   = report.LatencyMs
)

// The throttle models of the kernels: how the kernel holds a group's
// threads when its quota runs out, which decides how the tracer tells a
// held interval's start and end (docs/tracer.md, "The kernels production
// runs").
const (
	// ModelQueue: whole run queues are throttled, and the kernel keeps
	// no throttled clock of their own (before 6.6): a hold ends at the
	// load-tracking clock's unthrottle, no later than its group's next
	// run on that CPU.
	ModelQueue = "queue"
	// ModelQueueClock: whole run queues, each with its own throttled
	// clock (cfs_rq.throttled_clock_self, 6.6-6.17): a hold ends at each
	// unthrottle it waited through.
	ModelQueueClock = "queue_clock"
	// ModelTask: threads throttled one by one on their way back to user
	// space (task_struct.throttled, 6.18+), each queue with its clock.
	ModelTask = "task"
)

// Where the tracer ends a hold (ThrottleEvents.HoldEnds).
const (
	// EndsUnthrottle: at the kernel's unthrottle of the queue that held
	// it, hooked (fentry or a kprobe on unthrottle_cfs_rq), split where an
	// ancestor's throttle holds it on: exact on every model.
	EndsUnthrottle = "unthrottle"
	// EndsQueueClock: read from the queue's own throttled clock (6.6+),
	// no hook: exact, except that the clock runs while any of the
	// queue's ancestors is throttled too, so with both a container's and
	// its pod's limits binding the container's figure is an upper bound
	// and its pod's a lower one.
	EndsQueueClock = "queue_clock"
	// EndsUpperBound: no hook and no clock of the queue's own (before
	// 6.6): at the load-tracking clock's unthrottle, no later than the
	// group's next run on that CPU, which on a busy CPU comes late: the
	// traced time is an upper bound.
	EndsUpperBound = "upper_bound"
)
