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
	// Group is the cgroup (its kernfs id, the directory's inode number)
	// whose run queue was throttled: the traced one, or one below or
	// above it with a limit of its own. Sibling groups each limited are
	// throttled on one CPU at once, each in its own counter: their
	// intervals are unioned apart (Summarize). 0 where unknown.
	Group uint64
	// Since is when the throttled stretch that held it began on that run
	// queue, where that is known and earlier than Start: a thread woken
	// onto a queue throttled while none of ours was runnable there
	// (kernels that throttle whole queues: before 6.18). The queue's
	// counter runs from then; the thread waits only from Start. 0 where
	// it is Start.
	Since int64
	// Empty: no thread was held; a stretch in which the group's queue was
	// throttled with none of its threads runnable, which kernels before
	// 6.8 count (a thread used up the quota and went to sleep). TID is
	// that thread. It counts in its group's stretches (Summarize), and in
	// no thread's wait, request or iteration.
	Empty bool
}

// stretchStart is where e's queue's throttled stretch began (Since), or
// Start: what a group's union of stretches counts from, like its counter.
func (e Event) stretchStart() int64 {
	if e.Since > 0 && e.Since < e.Start {
		return e.Since
	}
	return e.Start
}

// Trace is one traced window, for what is drawn or written from it (--plot,
// --trace-out): the window [T0, T1) on CLOCK_MONOTONIC, the events, and the
// spans of what was measured in it (requests from scheduled arrival to
// completion, or iterations), named by What.
type Trace struct {
	T0, T1 int64
	Events []Event
	Spans  []Span
	What   string // "request" or "iteration"
	// Parts splits each span's time by cause where Known says it could
	// be (Timelines); nil where no thread's states were traced.
	Parts []Parts
	Known []bool
}
