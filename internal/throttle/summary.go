package throttle

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Summarize describes events over the window [t0, t1) (see Summary); lost
// is the tracer's count of events lost, carried through. events is not
// modified.
func Summarize(events []Event, lost uint64, t0, t1 int64) Summary {
	s := Summary{Source: "ebpf", CPUs: []CPU{}, EventsLost: lost}
	// Unioned per CPU and throttled group: a group's run queue on a CPU
	// is throttled once however many of its threads are held, and two
	// sibling groups' queues on one CPU are two throttled stretches, each
	// in its own group's counter.
	type queue struct {
		cpu   int
		group uint64
	}
	byQueue := map[queue][]Interval{}
	var durations []int64
	for _, e := range events {
		c := Interval{max(e.Start, t0), min(e.End, t1)}
		if c.End <= c.Start {
			continue
		}
		q := queue{e.CPU, e.Group}
		byQueue[q] = append(byQueue[q], c)
		durations = append(durations, c.Len())
	}
	var total int64
	byCPU := map[int]*CPU{}
	for q, ivs := range byQueue {
		n := len(ivs)
		sum := totalLen(mergeInPlace(ivs))
		total += sum
		c := byCPU[q.cpu]
		if c == nil {
			c = &CPU{CPU: q.cpu}
			byCPU[q.cpu] = c
		}
		c.Count += n
		c.TotalMs += msOf(sum)
	}
	for _, c := range byCPU {
		s.CPUs = append(s.CPUs, *c)
	}
	slices.SortFunc(s.CPUs, func(a, b CPU) int { return cmp.Compare(a.CPU, b.CPU) })
	s.Count = len(durations)
	s.TotalMs = msOf(total)
	if ms := sortedMs(durations); len(ms) > 0 {
		s.DurationMs = DurationMs{P50: nearestRank(ms, 0.50), P99: nearestRank(ms, 0.99), Max: ms[len(ms)-1]}
	}
	if lost > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("throttle events lost: %d held intervals the tracer could not pass on "+
			"(a full ring buffer or map, or still open when it stopped) are in no count or total, or ended late; "+
			"a shorter window or fewer traced threads keeps them", lost))
	}
	return s
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
func Compare(s *Summary, counterMs *float64) {
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
