package throttle

import (
	"cmp"
	"slices"

	"github.com/throttlebench/throttlebench/internal/report"
)

// Collector gathers a tracer's events in bounded memory: it keeps the
// first Max events it is given (all of them when Max <= 0) and of the rest
// only counts, per CPU, how many there were and their summed durations, so
// an hours-long `sample` never grows without limit. The zero value keeps
// everything. Not safe for concurrent use: one reader of the ring buffer
// owns it.
type Collector struct {
	Max int

	kept []Event
	// empty keeps the stretches no thread waited through (Event.Empty):
	// in the summary's unions, never among Events.
	empty   []Event
	dropped map[int]*droppedCPU
	// droppedNs sums the not-kept events' durations per group, for the
	// groups' rows.
	droppedNs map[uint64]int64
	// firstDropped is the earliest start of a dropped event: from there on,
	// the kept events no longer say which requests a throttle hit.
	firstDropped int64
}

type droppedCPU struct {
	count int
	sumNs int64
}

// Add records e.
func (c *Collector) Add(e Event) {
	if c.Max <= 0 || len(c.kept)+len(c.empty) < c.Max {
		if e.Empty {
			c.empty = append(c.empty, e)
		} else {
			c.kept = append(c.kept, e)
		}
		return
	}
	if c.dropped == nil {
		c.dropped = map[int]*droppedCPU{}
		c.droppedNs = map[uint64]int64{}
		c.firstDropped = e.Start
	}
	if e.Empty { // a group's stretch, not a thread's event
		c.droppedNs[e.Group] += max(e.End-e.stretchStart(), 0)
		return
	}
	d := c.dropped[e.CPU]
	if d == nil {
		d = &droppedCPU{}
		c.dropped[e.CPU] = d
	}
	d.count++
	d.sumNs += max(e.End-e.Start, 0)
	c.droppedNs[e.Group] += max(e.End-e.Start, 0)
	c.firstDropped = min(c.firstDropped, e.Start)
}

// Events returns the kept events of held threads (not the Empty ones), in
// the order they were added. The slice is the Collector's: do not modify
// it.
func (c *Collector) Events() []Event { return c.kept }

// Truncated reports whether some events were counted but not kept.
func (c *Collector) Truncated() bool { return c.dropped != nil }

// Summarize is Summarize over the kept events, with the not-kept ones
// reported in Truncated (and a warning) when there were any.
func (c *Collector) Summarize(lost uint64, t0, t1 int64) Summary {
	s := Summarize(append(slices.Clip(c.kept), c.empty...), lost, t0, t1)
	if c.dropped == nil {
		return s
	}
	tr := &Truncation{EventsKept: s.Count, CPUs: []DroppedCPU{}, FromMs: msOf(c.firstDropped - t0)}
	var sum int64
	for cpu, d := range c.dropped {
		tr.EventsNotKept += d.count
		sum += d.sumNs
		tr.CPUs = append(tr.CPUs, DroppedCPU{CPU: cpu, Count: d.count, SumMs: msOf(d.sumNs)})
	}
	slices.SortFunc(tr.CPUs, func(a, b DroppedCPU) int { return cmp.Compare(a.CPU, b.CPU) })
	tr.NotKeptSumMs = msOf(sum)
	for g, ns := range c.droppedNs {
		addNotKept(&s, g, msOf(ns))
	}
	s.Truncated = tr
	s.Warnings = append(s.Warnings, report.Warn(report.KindTraceIncomplete, "throttle events not kept: past %d events, %d more (%.1f ms summed) were only counted; "+
		"count, total_ms and duration_ms describe the kept events, and throttles after %.1f ms into the window are missing from the requests' and iterations' throttled time",
		c.Max, tr.EventsNotKept, tr.NotKeptSumMs, tr.FromMs))
	return s
}
