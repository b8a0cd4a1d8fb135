package throttle

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/words"
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
	// The union counts each stretch from its throttle (stretchStart), as
	// the counter does, and the stretches no thread waited through
	// (Empty); a thread's own interval, its duration, from when it waited.
	byQueue := map[queue][]Interval{}
	held := map[queue][]Interval{}
	var durations []int64
	for _, e := range events {
		c := Interval{max(e.Start, t0), min(e.End, t1)}
		if c.End <= c.Start {
			continue
		}
		q := queue{e.CPU, e.Group}
		iv := Interval{max(e.stretchStart(), t0), c.End}
		byQueue[q] = append(byQueue[q], iv)
		if e.Empty {
			continue
		}
		held[q] = append(held[q], iv)
		durations = append(durations, c.Len())
	}
	var total, empty int64
	byCPU := map[int]*CPU{}
	byGroup := map[uint64]*Group{}
	for q, ivs := range byQueue {
		n := len(held[q])
		sum := totalLen(mergeInPlace(ivs))
		idle := sum - totalLen(mergeInPlace(held[q]))
		total += sum
		empty += idle
		g := byGroup[q.group]
		if g == nil {
			g = &Group{CgroupID: q.group, Relation: RelationUnknown}
			byGroup[q.group] = g
		}
		g.Count += n
		g.TracedMs += msOf(sum)
		g.EmptyMs += msOf(idle)
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
	for _, g := range byGroup {
		s.Groups = append(s.Groups, *g)
	}
	sortGroups(s.Groups)
	s.Count = len(durations)
	s.TotalMs = msOf(total)
	s.EmptyMs = msOf(empty)
	if ms := sortedMs(durations); len(ms) > 0 {
		s.DurationMs = DurationMs{P50: nearestRank(ms, 0.50), P99: nearestRank(ms, 0.99), Max: ms[len(ms)-1]}
	}
	if lost > 0 {
		s.Warnings = append(s.Warnings, report.Warn(report.KindTraceIncomplete, "throttle events lost: %d held intervals the tracer could not pass on "+
			"(a full ring buffer or map, or still open when it stopped) are in no count or total, or ended late; "+
			"a shorter window or fewer traced threads keeps them", lost))
	}
	return s
}

// Group is one row of a summary's groups: a throttled group's traced time,
// and from Compare its place and its own counter.
type Group = report.ThrottleGroup

// The relations of a group to the traced cgroup (report's).
const (
	RelationTarget     = report.RelationTarget
	RelationDescendant = report.RelationDescendant
	RelationAncestor   = report.RelationAncestor
	RelationUnknown    = report.RelationUnknown
)

// Counter is one group of the traced cgroup's family with its own
// counter's throttled time over the window: what Compare sets the traced
// time against. CounterMs is nil where it is not known.
type Counter struct {
	ID        uint64
	Path      string
	Relation  string // RelationTarget, RelationDescendant or RelationAncestor
	CounterMs *float64
}

// AgreeBand is the relative difference between a group's traced and
// counted throttled time past which Compare warns: the tracer agrees with
// the counter within 0.1% alone on a quiet machine here, and on the VM's
// 6.1 two runs of per-request instances side by side came out within 10%
// in 126 of 128 runs; sameOrder's half, the bound
// internal/tracer's tests keep on any machine, would let a group missed by
// a third pass.
const AgreeBand = 0.10

// agreeFloorMs: a difference under it is no disagreement whatever the
// band (a few ticks of the counter, or a stretch cut at the window's edge
// on a group throttled a millisecond or two).
const agreeFloorMs = 1.0

// maxGroupWarnings bounds the disagreements named one by one: a run of
// many instances names the worst, and counts the rest.
const maxGroupWarnings = 5

// Disagree says whether a group's traced and counted throttled time part:
// by more than AgreeBand of the counter and more than agreeFloorMs, either
// way (exactly 10% is within). An ancestor's counter also counts the
// throttling of its children outside the traced cgroup, which no event
// shows: it disagrees only where the trace is above it.
func Disagree(tracedMs, counterMs float64, relation string) bool {
	d := tracedMs - counterMs
	if relation == RelationAncestor && d <= 0 {
		return false
	}
	return math.Abs(d) > max(AgreeBand*counterMs, agreeFloorMs)
}

// Compare sets each group's row against its own counter (counters: the
// traced cgroup's family as read around the window; an id no counter
// names stays unknown), adds the rows of the traced cgroup and of each
// descendant whose counter moved though no event named it, sets
// s.Agreement over the target and its descendants, and adds a warning for
// each group whose two figures disagree (Disagree) and one for the traced
// time no counter checks. emptyCounted: this kernel's counters also count
// the stretches in which none of a group's threads was runnable (before
// 6.8), traced only where the group runs on that CPU again: a group traced
// under its counter is told that this can be why.
func Compare(s *Summary, counters []Counter, emptyCounted bool) {
	byID := map[uint64]int{}
	for i, g := range s.Groups {
		byID[g.CgroupID] = i
	}
	for _, c := range counters {
		i, seen := byID[c.ID]
		if !seen {
			moved := c.CounterMs != nil && *c.CounterMs > 0
			if c.Relation != RelationTarget && (c.Relation != RelationDescendant || !moved) {
				continue
			}
			s.Groups = append(s.Groups, Group{CgroupID: c.ID})
			i = len(s.Groups) - 1
			byID[c.ID] = i
		}
		g := &s.Groups[i]
		g.Path, g.Relation, g.CounterMs = c.Path, c.Relation, c.CounterMs
		if c.CounterMs != nil && *c.CounterMs > 0 {
			r := g.TracedMs / *c.CounterMs
			g.Ratio = &r
		}
	}
	sortGroups(s.Groups)
	var own *Agreement
	var off []Group
	var unchecked []Group
	for _, g := range s.Groups {
		if g.CounterMs == nil {
			if g.TracedMs >= agreeFloorMs {
				unchecked = append(unchecked, g)
			}
			continue
		}
		if g.Relation == RelationTarget || g.Relation == RelationDescendant {
			if own == nil {
				own = &Agreement{}
			}
			own.TracedMs += g.TracedMs
			own.CounterMs += *g.CounterMs
		}
		if Disagree(g.TracedMs, *g.CounterMs, g.Relation) {
			off = append(off, g)
		}
	}
	if own != nil && own.CounterMs > 0 {
		r := own.TracedMs / own.CounterMs
		own.Ratio = &r
	}
	s.Agreement = own
	s.Warnings = append(s.Warnings, disagreements(off, emptyCounted)...)
	if w := uncheckedWarning(unchecked); w != "" {
		s.Warnings = append(s.Warnings, report.Warning{Kind: report.KindTraceUnchecked, Text: w})
	}
}

// disagreements are the warnings of the groups whose figures part, the
// furthest apart first, maxGroupWarnings of them and a count of the rest.
func disagreements(off []Group, emptyCounted bool) []report.Warning {
	slices.SortStableFunc(off, func(a, b Group) int {
		return cmp.Compare(math.Abs(b.TracedMs-*b.CounterMs), math.Abs(a.TracedMs-*a.CounterMs))
	})
	var out []report.Warning
	for i, g := range off {
		if i == maxGroupWarnings {
			out = append(out, report.Warn(report.KindTraceDisagrees, "throttle events and cpu.stat disagree for %d more groups past %.0f%% (throttle_events.groups has them)",
				len(off)-i, 100*AgreeBand))
			break
		}
		w := fmt.Sprintf("throttle events and cpu.stat disagree for %s (%s): its traced intervals add up to %.1f ms, its counter's throttled time to %.1f ms",
			groupName(g), g.Relation, g.TracedMs, *g.CounterMs)
		if *g.CounterMs > 0 {
			w += fmt.Sprintf(" (%+.0f%%)", 100*(g.TracedMs / *g.CounterMs - 1))
		}
		if emptyCounted && g.TracedMs < *g.CounterMs {
			w += "; this kernel's counter (before 6.6) also counts the stretches in which none of the group's threads " +
				"was runnable, traced only where the group ran on that CPU again"
		}
		out = append(out, report.Warning{Kind: report.KindTraceDisagrees, Text: w + "; the counter is the measure of throttling"})
	}
	return out
}

// uncheckedWarning says how much traced time no counter could check;
// "" when none.
func uncheckedWarning(gs []Group) string {
	if len(gs) == 0 {
		return ""
	}
	var ms float64
	var names []string
	for i, g := range gs {
		ms += g.TracedMs
		if i < 3 {
			names = append(names, fmt.Sprintf("%s %.1f ms", groupName(g), g.TracedMs))
		}
	}
	if len(gs) > 3 {
		names = append(names, fmt.Sprintf("%d more", len(gs)-3))
	}
	return fmt.Sprintf("%.1f ms of throttle events in %s checked against no counter (%s): each group was not found at both ends "+
		"of the window (made or removed within it) or its cpu.stat has no throttled time", ms, words.N(len(gs), "group"), strings.Join(names, ", "))
}

// groupName is a group's path, or its id where the path is not known.
func groupName(g Group) string {
	if g.Path != "" {
		return g.Path
	}
	return fmt.Sprintf("cgroup id %d", g.CgroupID)
}

// relationRank orders rows: the target, what held it from above, what is
// below it, the rest.
var relationRank = map[string]int{RelationTarget: 0, RelationAncestor: 1, RelationDescendant: 2, RelationUnknown: 3}

func sortGroups(gs []Group) {
	slices.SortFunc(gs, func(a, b Group) int {
		return cmp.Or(cmp.Compare(relationRank[a.Relation], relationRank[b.Relation]),
			cmp.Compare(a.Path, b.Path), cmp.Compare(a.CgroupID, b.CgroupID))
	})
}

// addNotKept adds the summed durations of a group's events a Collector
// only counted to its row's traced time (an upper bound for them: they
// were not merged).
func addNotKept(s *Summary, group uint64, ms float64) {
	for i := range s.Groups {
		if s.Groups[i].CgroupID == group {
			s.Groups[i].TracedMs += ms
			return
		}
	}
	s.Groups = append(s.Groups, Group{CgroupID: group, Relation: RelationUnknown, TracedMs: ms})
	sortGroups(s.Groups)
}
