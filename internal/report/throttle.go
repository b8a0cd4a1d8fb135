package report

// The throttle events of a traced run (--trace), as the result keeps them:
// internal/throttle computes them (its names are aliases of these).

// ThrottleEvents is a traced result's throttle_events: what the kernel's
// throttle events say of the measured window [t0, t1).
//
// Every event is first clipped to the window; an event that shares no time
// with it (or has no length) is left out of every field. Then, per run
// queue (a CPU and the group throttled there), the clipped intervals are
// merged into their union, since several threads held off together on one
// queue are one throttle of it: a group's cpu.stat throttled time sums, per
// CPU, how long its run queue was throttled, and each group's traced time
// (Groups) is built to be compared with it.
type ThrottleEvents struct {
	Source string `json:"source"` // "ebpf"
	// Model is the kernel's throttle model, which decides how exact the
	// trace is: "queue" (whole run queues, no clock of their own: before
	// 6.6), "queue_clock" (whole queues with their own throttled clock,
	// 6.6-6.17) or "task" (threads one by one, 6.18+); omitted where the
	// kernel's BTF could not be read.
	Model string `json:"model,omitempty"`
	// HoldEnds is where the tracer ended each hold on this kernel:
	// "unthrottle" (the kernel's unthrottle, hooked: exact), "queue_clock"
	// (the queue's own throttled clock, 6.6+: exact but where an
	// ancestor's limit binds too) or "upper_bound" (before 6.6 with no
	// hook: no later than the group's next run, so the traced time is an
	// upper bound, and a trace_upper_bound warning says so).
	HoldEnds string `json:"hold_ends,omitempty"`
	// Count is the number of events that overlap the window.
	Count int `json:"count"`
	// TotalMs sums, over run queues (CPU and throttled group), the length
	// of the union of that queue's clipped intervals: two threads held off
	// together on one queue count once, two CPUs throttled at once count
	// twice, and so do two groups' queues on one CPU.
	TotalMs float64 `json:"total_ms"`
	// EmptyMs is the part of TotalMs in which no thread was held: a
	// queue throttled with none of its group's threads runnable (one used
	// up the quota and went to sleep), which kernels before 6.6 count in
	// their throttled time; 0 (omitted) from 6.6, which counts none.
	EmptyMs float64 `json:"empty_ms,omitempty"`
	// DurationMs describes the clipped durations of the counted events.
	DurationMs EventDurationsMs `json:"duration_ms"`
	// CPUs has one entry per CPU with a counted event, by CPU number.
	CPUs []CPUEvents `json:"cpus"`
	// EventsLost counts held intervals the tracer could not pass on (a
	// full ring buffer or map, in flight or still open at its stop) or
	// that may have ended late (more holds than it keeps marks of): they
	// are in no other field.
	EventsLost uint64 `json:"events_lost"`
	// Attaches is how many times the command had attached the tracer
	// when this result was made, its own attach included: the tracer is
	// attached once, at the first traced configuration, and kept across
	// a sweep's, a list's and --instances' configurations and slices
	// (each live-patches the scheduler's tracepoints), so 1 throughout.
	Attaches int `json:"attaches,omitempty"`
	// Truncated is set when a Collector stopped keeping events: Count,
	// TotalMs, DurationMs and CPUs then describe the kept events only.
	Truncated *ThrottleTruncation `json:"truncated,omitempty"`
	// Agreement is set by throttle.Compare: the traced time of the traced
	// cgroup and its descendants (the groups rows of relation target and
	// descendant whose counter is known) against their summed counters.
	Agreement *ThrottleAgreement `json:"agreement,omitempty"`
	// Groups has a row per throttled group: each group the events name
	// (the one whose run queue was throttled), and, from throttle.Compare,
	// the traced cgroup itself and each descendant whose counter moved;
	// the target first, then ancestors, descendants and unknown groups,
	// each by path.
	Groups []ThrottleGroup `json:"groups,omitempty"`
	// Warnings are for the result's warnings list, not serialised here.
	Warnings []Warning `json:"-"`
}

// EventDurationsMs are the events' durations (clipped to the window), in ms, by
// nearest rank: each is the duration of some event (p99 is the ⌈0.99·n⌉-th
// smallest, so the max below 100 events), as the instances' exact
// percentiles are. All 0 when no event was counted.
type EventDurationsMs struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// CPUEvents is one CPU's share of a ThrottleEvents.
type CPUEvents struct {
	CPU     int     `json:"cpu"`
	Count   int     `json:"count"`    // events of this CPU overlapping the window
	TotalMs float64 `json:"total_ms"` // length of their union, clipped
}

// ThrottleAgreement is how the traced cgroup's own throttling (its and its
// descendants' rows in Groups, where their counters are known) stands
// against those groups' counters over the same window. An ancestor's row is
// not in it: its counter also counts its other children.
type ThrottleAgreement struct {
	// TracedMs sums those rows' traced_ms.
	TracedMs float64 `json:"traced_ms"`
	// CounterMs sums their counter_ms.
	CounterMs float64 `json:"counter_ms"`
	// Ratio is TracedMs / CounterMs; omitted when the counter is 0.
	Ratio *float64 `json:"ratio,omitempty"`
}

// The relations a ThrottleGroup may have to the traced cgroup.
const (
	RelationTarget     = "target"
	RelationDescendant = "descendant"
	RelationAncestor   = "ancestor"
	// RelationUnknown: a group found at neither end of the window (made
	// and removed within it), or an event without a group (id 0).
	RelationUnknown = "unknown"
)

// ThrottleGroup is one group's traced throttled time against its own
// counter over the same window (cpu.stat throttled_time's, v2
// throttled_usec's, delta).
type ThrottleGroup struct {
	// CgroupID is the group's kernfs id (its directory's inode number), as
	// the events name it.
	CgroupID uint64 `json:"cgroup_id"`
	// Path is its cgroup path as the kernel names it (/proc/PID/cgroup);
	// omitted where unknown.
	Path     string `json:"path,omitempty"`
	Relation string `json:"relation"` // Relation*: target, descendant, ancestor, unknown
	// Count is its events that overlap the window.
	Count int `json:"count"`
	// TracedMs is the union, per CPU, of its events' clipped intervals,
	// summed over CPUs (plus, past a Collector's bound, the summed
	// durations of its events only counted).
	TracedMs float64 `json:"traced_ms"`
	// EmptyMs is the part of TracedMs in which none of its threads was
	// held (ThrottleEvents.EmptyMs).
	EmptyMs float64 `json:"empty_ms,omitempty"`
	// CounterMs is its own counter's throttled time over the window; null
	// where not known (not read at both ends, or no counter).
	CounterMs *float64 `json:"counter_ms"`
	// Ratio is TracedMs / CounterMs; omitted when the counter is 0 or
	// unknown.
	Ratio *float64 `json:"ratio,omitempty"`
}

// ThrottleTruncation is what a Collector counted of the events it did not keep.
type ThrottleTruncation struct {
	// EventsKept is the number of kept events overlapping the window
	// (the ThrottleEvents's count).
	EventsKept int `json:"events_kept"`
	// EventsNotKept counts the events only counted: all of them, not
	// clipped to the window.
	EventsNotKept int `json:"events_not_kept"`
	// NotKeptSumMs sums their whole durations, not merged per CPU: an
	// upper bound of the throttled time they stand for.
	NotKeptSumMs float64 `json:"not_kept_sum_ms"`
	// FromMs is the start of the earliest not-kept event, in ms from the
	// start of the window: after it, the kept events are incomplete.
	FromMs float64 `json:"from_ms"`
	// CPUs has the count and summed durations per CPUEvents, by CPUEvents number.
	CPUs []DroppedCPU `json:"cpus"`
}

// DroppedCPU is one CPU's not-kept events.
type DroppedCPU struct {
	CPU   int     `json:"cpu"`
	Count int     `json:"count"`
	SumMs float64 `json:"sum_ms"`
}

// RequestThrottles is what a latency result says of its requests and the
// throttles they met (beside latency_ms).
type RequestThrottles struct {
	// ThrottledRequests counts the requests whose life overlapped any
	// throttle (overlap > 0).
	ThrottledRequests int `json:"throttled_requests"`
	// RequestThrottledMs describes the overlap of the throttled requests
	// only: "when a request met a throttle, how much of its life it lost".
	// Over all requests it would be mostly zeros whenever few are hit;
	// throttled_requests says how many it covers. Nil when none was.
	RequestThrottledMs *ThrottledMs `json:"request_throttled_ms,omitempty"`
	// LatencyMsUnthrottled are the response-time percentiles of the
	// requests that overlapped no throttle, with latency_ms's keys and
	// its rule (nearest rank). Nil when every request met a throttle.
	LatencyMsUnthrottled *LatencyMs `json:"latency_ms_unthrottled,omitempty"`
	// P99Request is the request at the p99 rank of response time (nearest
	// rank over all requests: the ⌈0.99·n⌉-th fastest, equal response
	// times ranked in the caller's order), with its own throttled overlap:
	// the latency_ms p99 is its response time. Nil when there are none.
	P99Request *P99Request `json:"p99_request,omitempty"`
	// Breakdown is each request's time split by cause, from the traced
	// threads that served it; nil where the tracer gave no thread's
	// states (a tracer without them, or requests tied to no thread).
	Breakdown *Breakdown `json:"breakdown,omitempty"`
}

// Breakdown splits the time of a result's requests (or iterations) into
// four parts that sum to it: on a CPU, held by the quota (throttled),
// waiting for a CPU others held (runnable, not throttled), and off CPU
// (asleep or blocked). Each part is the serving threads' time in that
// state from the request's scheduled arrival to its completion (an
// iteration's: the mean over its workers' threads).
type Breakdown struct {
	// Threads says how a request is tied to the threads whose time is
	// split: "worker" (the open loop's worker thread that served it),
	// "workers" (an iteration: the mean over its workers' threads);
	// "instance", "server", "command" (the threads of the request's
	// instance, of the server, of the command's run, as one pool: at
	// each instant the state of the one furthest along, on a CPU before
	// held, held before waiting, waiting before off CPU).
	Threads string `json:"threads"`
	// Count is how many were split; Unknown how many were not (no
	// state of their thread was traced).
	Count   int `json:"count"`
	Unknown int `json:"unknown"`
	// Each part's p50 and p99 over those split, in ms (nearest rank,
	// each part ranked on its own).
	OnCPUMs   PartMs `json:"on_cpu_ms"`
	HeldMs    PartMs `json:"held_ms"`
	WaitingMs PartMs `json:"waiting_ms"`
	OffCPUMs  PartMs `json:"off_cpu_ms"`
	// P99Share is each part's share of the summed time of the p99
	// requests: those whose time is at or above the p99 of those split
	// (nearest rank): what the slow ones spent their time on. The shares
	// sum to 1. P99Count is how many they are.
	P99Share Shares `json:"p99_share"`
	P99Count int    `json:"p99_count"`
}

// PartMs is one part's percentiles over requests, in ms.
type PartMs struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

// Shares are the four parts as fractions of a time.
type Shares struct {
	OnCPU   float64 `json:"on_cpu"`
	Held    float64 `json:"held"`
	Waiting float64 `json:"waiting"`
	OffCPU  float64 `json:"off_cpu"`
}

// ThrottledMs are a set of overlaps, in ms: mean exact, p99 and max by
// nearest rank.
type ThrottledMs struct {
	Mean float64 `json:"mean"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// P99Request is one request's response time and the throttled time within it.
type P99Request struct {
	Index       int     `json:"index"` // its position in the caller's slices
	ResponseMs  float64 `json:"response_ms"`
	ThrottledMs float64 `json:"throttled_ms"`
}
