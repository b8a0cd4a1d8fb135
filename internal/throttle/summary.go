package throttle

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Summary is a traced result's throttle_events: what the kernel's throttle
// events say of the measured window [t0, t1).
//
// Every event is first clipped to the window; an event that shares no time
// with it (or has no length) is left out of every field. Then, per CPU, the
// clipped intervals of that CPU's events are merged into their union, since
// several threads of the cgroup held off together on one CPU are one
// throttle of that CPU's run queue: the kernel's throttled_time sums, per
// CPU, how long each run queue was throttled, and TotalMs is built to be
// compared with it.
type Summary struct {
	Source string `json:"source"` // "ebpf"
	// Count is the number of events that overlap the window.
	Count int `json:"count"`
	// TotalMs sums, over CPUs, the length of the union of that CPU's
	// clipped intervals: two threads held off together on one CPU count
	// once, two CPUs throttled at once count twice.
	TotalMs float64 `json:"total_ms"`
	// DurationMs describes the clipped durations of the counted events.
	DurationMs DurationMs `json:"duration_ms"`
	// CPUs has one entry per CPU with a counted event, by CPU number.
	CPUs []CPU `json:"cpus"`
	// EventsLost counts events the kernel could not pass on (a full ring
	// buffer): they are in no other field.
	EventsLost uint64 `json:"events_lost"`
	// Truncated is set when a Collector stopped keeping events: Count,
	// TotalMs, DurationMs and CPUs then describe the kept events only.
	Truncated *Truncation `json:"truncated,omitempty"`
	// Agreement is set by Compare: how TotalMs stands against the
	// counter's throttled time over the same window.
	Agreement *Agreement `json:"agreement,omitempty"`
	// Warnings are for the result's warnings list, not serialised here.
	Warnings []string `json:"-"`
}

// DurationMs are the events' durations (clipped to the window), in ms, by
// nearest rank: each is the duration of some event (p99 is the ⌈0.99·n⌉-th
// smallest, so the max below 100 events), as the instances' exact
// percentiles are. All 0 when no event was counted.
type DurationMs struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// CPU is one CPU's share of a Summary.
type CPU struct {
	CPU     int     `json:"cpu"`
	Count   int     `json:"count"`    // events of this CPU overlapping the window
	TotalMs float64 `json:"total_ms"` // length of their union, clipped
}

// Summarize describes events over the window [t0, t1) (see Summary); lost
// is the tracer's count of events lost, carried through. events is not
// modified.
func Summarize(events []Event, lost uint64, t0, t1 int64) Summary {
	s := Summary{Source: "ebpf", CPUs: []CPU{}, EventsLost: lost}
	byCPU := map[int][]Interval{}
	var durations []int64
	for _, e := range events {
		c := Interval{max(e.Start, t0), min(e.End, t1)}
		if c.End <= c.Start {
			continue
		}
		byCPU[e.CPU] = append(byCPU[e.CPU], c)
		durations = append(durations, c.Len())
	}
	var total int64
	for cpu, ivs := range byCPU {
		n := len(ivs)
		sum := totalLen(mergeInPlace(ivs))
		total += sum
		s.CPUs = append(s.CPUs, CPU{CPU: cpu, Count: n, TotalMs: msOf(sum)})
	}
	slices.SortFunc(s.CPUs, func(a, b CPU) int { return cmp.Compare(a.CPU, b.CPU) })
	s.Count = len(durations)
	s.TotalMs = msOf(total)
	if ms := sortedMs(durations); len(ms) > 0 {
		s.DurationMs = DurationMs{P50: nearestRank(ms, 0.50), P99: nearestRank(ms, 0.99), Max: ms[len(ms)-1]}
	}
	if lost > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("throttle events lost: %d did not fit the ring buffer and are in no count or total; "+
			"a shorter window or fewer traced threads keeps them", lost))
	}
	return s
}

// Agreement is how a Summary's traced time stands against the kernel's
// counter of the same window (cpu.stat throttled_time's delta).
type Agreement struct {
	// TracedMs is the traced time compared: TotalMs, plus the summed
	// durations of events a Collector did not keep when it truncated.
	TracedMs  float64 `json:"traced_ms"`
	CounterMs float64 `json:"counter_ms"`
	// Ratio is TracedMs / CounterMs; omitted when the counter is 0.
	Ratio *float64 `json:"ratio,omitempty"`
}

// AgreeBand is the relative difference between traced and counted
// throttled time past which Agree warns.
const AgreeBand = 0.10

// agreeFloorMs: below it on both sides, there is too little throttling to
// compare (a few ticks of the counter).
const agreeFloorMs = 1.0

// Agree compares the traced throttled time totalMs with the counter's
// counterMs. ratio is totalMs / counterMs (0 when counterMs is nil or 0,
// where it is undefined). warning is empty unless the two differ by more
// than AgreeBand of the counter, either way (exactly 10% is within); there
// is none when the counter is unknown (nil) or both are under 1 ms.
func Agree(totalMs float64, counterMs *float64) (ratio float64, warning string) {
	if counterMs == nil {
		return 0, ""
	}
	c := *counterMs
	if c > 0 {
		ratio = totalMs / c
	}
	if totalMs < agreeFloorMs && c < agreeFloorMs {
		return ratio, ""
	}
	head := fmt.Sprintf("throttle events and cpu.stat disagree: the traced intervals add up to %.1f ms, the counter's throttled time to %.1f ms", totalMs, c)
	if c <= 0 {
		return ratio, head + ": the counter saw no throttling where the tracer did; the events may come from another cgroup " +
			"or the counter from another window"
	}
	diff := (totalMs - c) / c
	if math.Abs(diff) <= AgreeBand {
		return ratio, ""
	}
	if diff > 0 {
		return ratio, fmt.Sprintf("%s (%+.0f%%): threads were held off longer than their run queues were throttled, "+
			"as when a thread waits for its CPU after the unthrottle; the counter is the measure of throttling", head, 100*diff)
	}
	return ratio, fmt.Sprintf("%s (%+.0f%%): the tracer missed throttled time, as when a run queue is throttled with no thread "+
		"of the cgroup switched out (one woken into a throttled queue) or events were lost; the counter is the measure of throttling", head, 100*diff)
}

// Compare sets s.Agreement against the counter's throttled time over the
// same window (nil when unknown: no agreement is set) and adds Agree's
// warning, if any, to s.Warnings. When s was truncated the traced time is
// TotalMs plus the not-kept events' summed durations, an upper bound for
// them since they were not merged.
func (s *Summary) Compare(counterMs *float64) {
	if counterMs == nil {
		return
	}
	traced := s.TotalMs
	if s.Truncated != nil {
		traced += s.Truncated.NotKeptSumMs
	}
	ratio, w := Agree(traced, counterMs)
	s.Agreement = &Agreement{TracedMs: traced, CounterMs: *counterMs}
	if *counterMs > 0 {
		s.Agreement.Ratio = &ratio
	}
	if w != "" {
		s.Warnings = append(s.Warnings, w)
	}
}
