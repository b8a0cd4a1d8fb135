package throttle

import (
	"sort"
)

// Span is the life of one request (scheduled arrival to completion) or one
// iteration, on CLOCK_MONOTONIC ns like the events. CPU is the CPU it ran
// on, or -1 when unknown; TID the thread that served it (the kernel's
// thread id), 0 when unknown. Group, where not 0, names the threads that
// served it as one pool instead (Timelines.SpanParts): those of a group
// (an instance's slice, by its kernfs id), or AnyGroup.
type Span struct {
	Start, End int64
	CPU        int
	TID        int32
	Group      uint64
}

// AnyGroup, as a Span's Group, pools every traced thread: a server's,
// which serves each request on whichever of its threads it likes.
const AnyGroup = ^uint64(0)

// cover is a union of intervals ready to answer "how much of [s, e) does
// it cover" in O(log n): the sorted disjoint intervals and, for each, the
// summed length of those before it.
type cover struct {
	ivs    []Interval
	before []int64
}

func newCover(ivs []Interval) cover {
	u := mergeInPlace(ivs)
	c := cover{ivs: u, before: make([]int64, len(u))}
	var sum int64
	for i, iv := range u {
		c.before[i] = sum
		sum += iv.Len()
	}
	return c
}

// upTo is the length of the cover before x: the measure of it ∩ (-∞, x).
func (c cover) upTo(x int64) int64 {
	// k: the number of intervals starting before x; only the last of them
	// can contain x.
	k := sort.Search(len(c.ivs), func(i int) bool { return c.ivs[i].Start >= x })
	if k == 0 {
		return 0
	}
	iv := c.ivs[k-1]
	return c.before[k-1] + min(x, iv.End) - iv.Start
}

// overlap is the length of the cover within [s, e); 0 for an empty span.
func (c cover) overlap(s, e int64) int64 {
	if e <= s {
		return 0
	}
	return c.upTo(e) - c.upTo(s)
}

func intervalsOf(events []Event, keep func(Event) bool) []Interval {
	ivs := make([]Interval, 0, len(events))
	for _, e := range events {
		if e.End > e.Start && (keep == nil || keep(e)) {
			ivs = append(ivs, Interval{e.Start, e.End})
		}
	}
	return ivs
}

// Overlap returns, for each span, how many ns of it the cgroup was
// throttled on any CPU: the length of its overlap with the union over all
// CPUs of the events' intervals. That is the simple rule: a request is
// charged for a throttle on a CPU it may not have run on, and two CPUs
// throttled at once count once. The events are sorted once and each span
// answered by binary search over prefix sums, O((n+m) log m) for n spans
// and m events; neither input is modified.
func Overlap(spans []Span, events []Event) []int64 {
	c := newCover(intervalsOf(events, nil))
	out := make([]int64, len(spans))
	for i, sp := range spans {
		out[i] = c.overlap(sp.Start, sp.End)
	}
	return out
}

// ThrottledMsPerIteration is run's throttled_ms_per_iteration: each
// iteration's overlap (by Overlap's rule: its workers run on every CPU) in
// ms, in the iterations' order.
func ThrottledMsPerIteration(iterations []Span, events []Event) []float64 {
	ns := Overlap(iterations, events)
	out := make([]float64, len(ns))
	for i, v := range ns {
		out[i] = msOf(v)
	}
	return out
}
