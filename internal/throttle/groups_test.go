package throttle

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
)

// gev is an event of group g with times in ms.
func gev(cpu int, g uint64, startMs, endMs int64) Event {
	return Event{CPU: cpu, TID: 1, Group: g, Start: startMs * ms, End: endMs * ms}
}

func TestDisagree(t *testing.T) {
	for _, tc := range []struct {
		name            string
		traced, counter float64
		relation        string
		want            bool
	}{
		{"equal", 100, 100, RelationTarget, false},
		{"exactly 10% more is within", 110, 100, RelationTarget, false},
		{"exactly 10% less is within", 90, 100, RelationDescendant, false},
		{"past 10% more", 110.1, 100, RelationTarget, true},
		{"past 10% less", 89.9, 100, RelationDescendant, true},
		{"both about zero", 0.4, 0, RelationTarget, false},
		{"a millisecond apart is no disagreement", 3.9, 3, RelationTarget, false},
		{"counter zero, events not", 50, 0, RelationTarget, true},
		{"events zero, counter not", 0, 50, RelationDescendant, true},
		{"an ancestor's counter also counts its other children", 40, 100, RelationAncestor, false},
		{"an ancestor traced above its counter", 120, 100, RelationAncestor, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Disagree(tc.traced, tc.counter, tc.relation))
		})
	}
}

// The pod: a pod at 0.6 CPU traced, holding container a at 0.3:
// events of both groups, each set against its own counter, not their sum
// against the pod's.
func TestCompareEachGroupItsOwnCounter(t *testing.T) {
	const pod, a, b, top = 11, 12, 13, 1
	s := Summarize([]Event{
		gev(0, pod, 0, 60), gev(1, pod, 0, 50), // the pod's queues, on both CPUs
		gev(0, a, 100, 130), gev(0, a, 110, 140), // a's queue on CPU 0: 40 ms, unioned
	}, 0, 0, 1000*ms)
	require.Len(t, s.Groups, 2)
	assert.Equal(t, RelationUnknown, s.Groups[0].Relation, "before Compare no group is placed")
	assert.Equal(t, 150.0, s.TotalMs)

	Compare(&s, []Counter{
		{ID: pod, Path: "/tbnest", Relation: RelationTarget, CounterMs: f64(112)},
		{ID: a, Path: "/tbnest/a", Relation: RelationDescendant, CounterMs: f64(39)},
		{ID: b, Path: "/tbnest/b", Relation: RelationDescendant, CounterMs: f64(0)}, // unlimited, never throttled: no row
		{ID: top, Path: "/", Relation: RelationAncestor},
	}, false)
	assert.Empty(t, s.Warnings, "each group within 10%% of its own counter")
	require.Len(t, s.Groups, 2)
	assert.Equal(t, Group{CgroupID: pod, Path: "/tbnest", Relation: RelationTarget, Count: 2, TracedMs: 110, CounterMs: f64(112), Ratio: f64(110.0 / 112)}, s.Groups[0])
	assert.Equal(t, Group{CgroupID: a, Path: "/tbnest/a", Relation: RelationDescendant, Count: 2, TracedMs: 40, CounterMs: f64(39), Ratio: f64(40.0 / 39)}, s.Groups[1])
	require.NotNil(t, s.Agreement)
	assert.Equal(t, 150.0, s.Agreement.TracedMs, "the target and its descendants")
	assert.Equal(t, 151.0, s.Agreement.CounterMs)
	assert.InDelta(t, 150.0/151, *s.Agreement.Ratio, 1e-12)

	// The same events against the pod's counter alone were what the
	// summary compared before: 150 against 112, +34%.
	s = Summarize(s2events(), 0, 0, 1000*ms)
	Compare(&s, []Counter{{ID: pod, Path: "/tbnest", Relation: RelationTarget, CounterMs: f64(112)}, {ID: a, Path: "/tbnest/a", Relation: RelationDescendant, CounterMs: f64(80)}}, false)
	require.Len(t, s.Warnings, 1, "a's own figures part, the pod's do not")
	assert.Equal(t, report.KindTraceDisagrees, s.Warnings[0].Kind)
	assert.Equal(t, "throttle events and cpu.stat disagree for /tbnest/a (descendant): its traced intervals add up to 40.0 ms, "+
		"its counter's throttled time to 80.0 ms (-50%); the counter is the measure of throttling", s.Warnings[0].Text)
}

func s2events() []Event {
	return []Event{gev(0, 11, 0, 60), gev(1, 11, 0, 50), gev(0, 12, 100, 130), gev(0, 12, 110, 140)}
}

// A container limited only by its pod, traced at the container: the events
// name the pod, an ancestor, set against the pod's counter; the target has
// its row, untraced and uncounted.
func TestCompareAncestor(t *testing.T) {
	const c, pod = 21, 20
	s := Summarize([]Event{gev(0, pod, 0, 80)}, 0, 0, 1000*ms)
	Compare(&s, []Counter{
		{ID: c, Path: "/pod/c", Relation: RelationTarget, CounterMs: f64(0)},
		{ID: pod, Path: "/pod", Relation: RelationAncestor, CounterMs: f64(81)},
	}, false)
	assert.Empty(t, s.Warnings)
	require.Len(t, s.Groups, 2)
	assert.Equal(t, Group{CgroupID: c, Path: "/pod/c", Relation: RelationTarget, CounterMs: f64(0)}, s.Groups[0], "the target first")
	assert.Equal(t, RelationAncestor, s.Groups[1].Relation)
	assert.Equal(t, 80.0, s.Groups[1].TracedMs)
	require.NotNil(t, s.Agreement, "the target's own: nothing traced, nothing counted")
	assert.Zero(t, s.Agreement.TracedMs)
	assert.Nil(t, s.Agreement.Ratio)

	// The pod's counter also counts its other containers: under it is no
	// disagreement; above it is.
	s = Summarize([]Event{gev(0, pod, 0, 80)}, 0, 0, 1000*ms)
	Compare(&s, []Counter{{ID: c, Relation: RelationTarget, CounterMs: f64(0)}, {ID: pod, Path: "/pod", Relation: RelationAncestor, CounterMs: f64(400)}}, false)
	assert.Empty(t, s.Warnings)
	s = Summarize([]Event{gev(0, pod, 0, 80)}, 0, 0, 1000*ms)
	Compare(&s, []Counter{{ID: c, Relation: RelationTarget, CounterMs: f64(0)}, {ID: pod, Path: "/pod", Relation: RelationAncestor, CounterMs: f64(40)}}, false)
	require.Len(t, s.Warnings, 1)
	assert.Contains(t, s.Warnings[0].Text, "/pod (ancestor)")
	assert.Contains(t, s.Warnings[0].Text, "(+100%)")
}

// A limited container in an unlimited pod, traced at the pod: the events
// name the container; the pod's counter saw nothing, and that is no
// disagreement, since nothing of the pod's own was traced.
func TestCompareDescendantOnly(t *testing.T) {
	const pod, a = 30, 31
	s := Summarize([]Event{gev(0, a, 0, 90), gev(1, a, 0, 90)}, 0, 0, 1000*ms)
	Compare(&s, []Counter{
		{ID: pod, Path: "/pod", Relation: RelationTarget, CounterMs: f64(0)},
		{ID: a, Path: "/pod/a", Relation: RelationDescendant, CounterMs: f64(178)},
	}, false)
	assert.Empty(t, s.Warnings, "the old warning, 'the counter saw no throttling where the tracer did', is gone")
	require.Len(t, s.Groups, 2)
	assert.Equal(t, "/pod", s.Groups[0].Path)
	assert.Zero(t, s.Groups[0].TracedMs)
	assert.Equal(t, 180.0, s.Groups[1].TracedMs)
}

// A group no counter names (made and removed within the window), a group
// with no counter, and events of no group (id 0) are listed, and their
// traced time is said to be unchecked, once.
func TestCompareUnchecked(t *testing.T) {
	s := Summarize([]Event{gev(0, 0, 0, 5), gev(0, 40, 0, 20), gev(1, 41, 0, 0)}, 0, 0, 1000*ms)
	Compare(&s, []Counter{{ID: 1, Path: "/p", Relation: RelationTarget, CounterMs: f64(0)}, {ID: 40, Path: "/p/x", Relation: RelationDescendant}}, false)
	require.Len(t, s.Groups, 3)
	assert.Equal(t, []string{RelationTarget, RelationDescendant, RelationUnknown},
		[]string{s.Groups[0].Relation, s.Groups[1].Relation, s.Groups[2].Relation})
	require.Len(t, s.Warnings, 1, "%q", s.Warnings)
	assert.Equal(t, report.KindTraceUnchecked, s.Warnings[0].Kind)
	assert.Equal(t, "25.0 ms of throttle events in 2 groups checked against no counter (/p/x 20.0 ms, cgroup id 0 5.0 ms): "+
		"each group was not found at both ends of the window (made or removed within it) or its cpu.stat has no throttled time", s.Warnings[0].Text)
	assert.Equal(t, 0.0, s.Agreement.TracedMs, "unchecked rows are not in the agreement")
}

// Past maxGroupWarnings disagreeing groups, the worst are named and the
// rest counted.
func TestCompareManyDisagreements(t *testing.T) {
	var events []Event
	var counters []Counter
	for i := range 8 {
		id := uint64(100 + i)
		events = append(events, gev(0, id, 0, 10))
		counters = append(counters, Counter{ID: id, Path: "/p/i" + string(rune('0'+i)), Relation: RelationDescendant, CounterMs: f64(float64(20 + i))})
	}
	s := Summarize(events, 0, 0, 1000*ms)
	Compare(&s, counters, false)
	require.Len(t, s.Warnings, maxGroupWarnings+1)
	assert.Contains(t, s.Warnings[0].Text, "/p/i7 (descendant)", "the furthest apart first")
	assert.Equal(t, "throttle events and cpu.stat disagree for 3 more groups past 10% (throttle_events.groups has them)", s.Warnings[maxGroupWarnings].Text)
}

// The rows' keys name their units; an unknown counter is null, not 0.
func TestGroupJSONKeys(t *testing.T) {
	s := Summarize([]Event{gev(0, 7, 0, 4)}, 0, 0, 10*ms)
	Compare(&s, []Counter{{ID: 7, Path: "/p", Relation: RelationTarget, CounterMs: f64(4)}}, false)
	b, err := json.Marshal(s.Groups)
	require.NoError(t, err)
	assert.Equal(t, `[{"cgroup_id":7,"path":"/p","relation":"target","count":1,"traced_ms":4,"counter_ms":4,"ratio":1}]`, string(b))
	b, _ = json.Marshal(Summary{Agreement: &Agreement{TracedMs: 3, CounterMs: 0}})
	assert.False(t, strings.Contains(string(b), `"ratio"`), "counter 0: %s, want no ratio", b)
}

// Where the kernel's counter also counts stretches no thread waited through
// (before 6.6), a group traced under its counter is told so; one traced
// over it, and any group on a kernel that counts only waits, is not.
func TestGroupUnderItsCounterNamesEmptyStretches(t *testing.T) {
	const why = "also counts the stretches in which none of the group's threads was runnable"
	warn := func(tracedMs, counterMs float64, emptyCounted bool) string {
		s := Summarize([]Event{gev(0, 7, 0, int64(tracedMs))}, 0, 0, 1000*ms)
		Compare(&s, []Counter{{ID: 7, Path: "/p", Relation: RelationTarget, CounterMs: f64(counterMs)}}, emptyCounted)
		require.Len(t, s.Warnings, 1)
		return s.Warnings[0].Text
	}
	assert.Contains(t, warn(60, 100, true), why)
	assert.NotContains(t, warn(140, 100, true), why)
	assert.NotContains(t, warn(60, 100, false), why)
}
