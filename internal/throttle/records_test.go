package throttle

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const msNs = int64(1e6)

func hold(tid int32, cpu int, group uint64, t int64) Record {
	return Record{Kind: RecordHold, CPU: cpu, OnCPU: cpu, TID: tid, Time: t, Group: group}
}

func wake(tid int32, cpu int, group uint64, t int64) Record {
	r := hold(tid, cpu, group, t)
	r.Kind = RecordWake
	return r
}

func back(tid int32, cpu, on int, group uint64, t int64) Record {
	return Record{Kind: RecordBack, CPU: cpu, OnCPU: on, TID: tid, Time: t, Group: group}
}

func run(cpu int, group uint64, t int64) Record {
	return Record{Kind: RecordRun, CPU: cpu, OnCPU: cpu, TID: 99, Time: t, Group: group}
}

func none(int32) bool { return false }

func TestIntervalsBackEndsAHold(t *testing.T) {
	ev, l := Intervals([]Record{hold(7, 1, 5, 10*msNs), back(7, 1, 1, 5, 90*msNs)}, 100*msNs, none)
	assert.Equal(t, []Event{{CPU: 1, TID: 7, Start: 10 * msNs, End: 90 * msNs, Group: 5}}, ev)
	assert.Zero(t, l)
}

// The per-task path (6.18 here): a thread is held when it meets the
// throttle; its queue's throttled clock says when the unthrottle came, and
// the interval ends there even though the thread ran only later, after a
// busy CPU's others.
func TestIntervalsPerTaskEndsAtTheUnthrottle(t *testing.T) {
	h := hold(7, 0, 5, 10*msNs)
	// The queue's rq_clock runs 1000 ns behind CLOCK_MONOTONIC; it was
	// throttled at 9 msNs on its clock, and its throttled time so far was
	// 40 msNs.
	h.Clock, h.SelfClock, h.SelfTime = uint64(10*msNs-1000), uint64(9*msNs), uint64(40*msNs)
	b := back(7, 0, 0, 5, 95*msNs)
	// Unthrottled after 81 msNs: at 90 msNs on its clock.
	b.Clock, b.SelfClock, b.SelfTime = uint64(95*msNs-1000), 0, uint64(40*msNs+81*msNs)
	ev, _ := Intervals([]Record{h, b}, 100*msNs, none)
	assert.Equal(t, []Event{{CPU: 0, TID: 7, Start: 10 * msNs, End: 90*msNs + 1000, Group: 5}}, ev)

	// No unthrottle since (its throttled time did not grow): the Back.
	b.SelfTime = h.SelfTime
	ev, _ = Intervals([]Record{h, b}, 100*msNs, none)
	assert.Equal(t, 95*msNs, ev[0].End)
}

// The whole-queue path (6.1): a worker woken onto the throttled queue and
// the spinner switched out are held together; the group's first run on
// that CPU ends both, though each gets its turn later.
func TestIntervalsWholeQueueEndTogetherAtTheRun(t *testing.T) {
	recs := []Record{
		hold(1, 0, 5, 10*msNs),
		wake(2, 0, 5, 30*msNs),
		run(0, 5, 100*msNs),
		back(1, 0, 0, 5, 100*msNs),
		back(2, 0, 0, 5, 104*msNs),
	}
	ev, _ := Intervals(recs, 200*msNs, none)
	assert.Equal(t, []Event{
		{CPU: 0, TID: 1, Start: 10 * msNs, End: 100 * msNs, Group: 5},
		{CPU: 0, TID: 2, Start: 30 * msNs, End: 100 * msNs, Group: 5},
	}, ev)
}

// Preemption by a sibling: another group's run on the same CPU, or the
// same group's on another CPU, ends nothing; a run before the hold ends
// nothing either.
func TestIntervalsRunEndsOnlyItsOwnQueue(t *testing.T) {
	recs := []Record{
		run(0, 5, 5*msNs),
		hold(1, 0, 5, 10*msNs),
		run(0, 6, 20*msNs), // a sibling group on CPU 0
		run(1, 5, 30*msNs), // the group on CPU 1
		back(1, 0, 0, 5, 90*msNs),
	}
	ev, _ := Intervals(recs, 100*msNs, none)
	assert.Equal(t, []Event{{CPU: 0, TID: 1, Start: 10 * msNs, End: 90 * msNs, Group: 5}}, ev)
}

// Migration: held on CPU 0, back on CPU 1. The interval is CPU 0's (its
// queue's), and CPU 0's run of the group still ends it.
func TestIntervalsMigration(t *testing.T) {
	recs := []Record{
		hold(1, 0, 5, 10*msNs),
		run(0, 5, 60*msNs),
		back(1, 0, 1, 5, 70*msNs),
	}
	ev, _ := Intervals(recs, 100*msNs, none)
	assert.Equal(t, []Event{{CPU: 0, TID: 1, Start: 10 * msNs, End: 60 * msNs, Group: 5}}, ev)
}

// A group removed while its thread was held: the Back finds no queue of
// that group (no clocks), and the interval ends when the thread ran.
func TestIntervalsGroupRemovedWhileHeld(t *testing.T) {
	h := hold(1, 0, 5, 10*msNs)
	h.Clock, h.SelfClock, h.SelfTime = uint64(10*msNs), uint64(9*msNs), uint64(40*msNs)
	b := back(1, 0, 0, 5, 70*msNs) // clocks zero: not under group 5 now
	ev, l := Intervals([]Record{h, b}, 100*msNs, none)
	assert.Equal(t, []Event{{CPU: 0, TID: 1, Start: 10 * msNs, End: 70 * msNs, Group: 5}}, ev)
	assert.Zero(t, l)
}

// A Run stamped after a hold's start but written before it (another CPU's
// record, reserved first) still ends it.
func TestIntervalsRunWrittenBeforeTheHold(t *testing.T) {
	recs := []Record{run(0, 5, 50*msNs), hold(1, 0, 5, 40*msNs), back(1, 0, 0, 5, 80*msNs)}
	ev, _ := Intervals(recs, 100*msNs, none)
	assert.Equal(t, int64(50*msNs), ev[0].End)
}

// Lost records (a full ring buffer): a Back lost shows as the same thread
// held again, or as a hold open at the end whose thread the kernel no
// longer holds; both are counted, neither is made up. A Back whose hold
// was lost is an orphan.
func TestIntervalsLostRecords(t *testing.T) {
	recs := []Record{
		hold(1, 0, 5, 10*msNs), // its Back lost
		hold(1, 0, 5, 50*msNs),
		back(1, 0, 0, 5, 60*msNs),
		back(2, 1, 1, 5, 65*msNs), // its hold lost
		hold(3, 1, 5, 70*msNs),    // its Back lost, not held at the end
		hold(4, 1, 5, 80*msNs),    // still held at the end
	}
	ev, l := Intervals(recs, 100*msNs, func(tid int32) bool { return tid == 4 })
	assert.Equal(t, []Event{
		{CPU: 0, TID: 1, Start: 50 * msNs, End: 60 * msNs, Group: 5},
		{CPU: 1, TID: 4, Start: 80 * msNs, End: 100 * msNs, Group: 5},
	}, ev)
	assert.Equal(t, RecordLosses{EndLost: 2, Orphans: 1, OpenAtEnd: 1}, l)
}

// The streaming form hands each interval on as its Back comes.
func TestInterpreterStreams(t *testing.T) {
	var in Interpreter
	var got []Event
	emit := func(e Event) { got = append(got, e) }
	in.Add(hold(1, 0, 5, 10*msNs), emit)
	assert.Empty(t, got)
	assert.Equal(t, 1, in.Open())
	in.Add(back(1, 0, 0, 5, 20*msNs), emit)
	assert.Len(t, got, 1)
	assert.Zero(t, in.Open())
}

// FuzzInterpreter: any stream of records (kinds, CPUs, threads, groups and
// clocks from the input, times moving forward or a little back) gives
// intervals that start at a hold of their thread and never end before it,
// and every hold is accounted for exactly once: an interval from its Back,
// an end lost, or open at the end; every Sleep likewise: an empty stretch
// from its queue's Run, or unended.
func FuzzInterpreter(f *testing.F) {
	f.Add([]byte{1, 0, 1, 5, 10, 0, 3, 0, 1, 5, 20, 0})
	f.Add([]byte{1, 0, 1, 5, 10, 9, 2, 0, 2, 5, 10, 0, 4, 0, 0, 5, 40, 0, 3, 0, 1, 5, 50, 7})
	f.Add([]byte{1, 1, 1, 6, 1, 1, 1, 1, 1, 6, 1, 1, 3, 1, 1, 6, 255, 255})
	f.Add([]byte{4, 0, 1, 5, 10, 9, 3, 0, 1, 5, 10, 20, 4, 0, 2, 5, 40, 30})
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []Record
		var now int64 = 1000
		holds := map[int32][]int64{}
		sleeps := map[int32][]int64{}
		nholds, nsleeps := 0, 0
		for i := 0; i+6 <= len(data); i += 6 {
			b := data[i : i+6]
			// Times mostly forward; a step back now and then, as
			// records of two CPUs may come.
			now += int64(b[4]) - 16
			r := Record{Kind: RecordKind(b[0]%5 + 1), CPU: int(b[1] % 3), OnCPU: int(b[1] / 3 % 3), TID: int32(b[2] % 4),
				Time: now, Group: uint64(b[3] % 3), Clock: uint64(b[5]) * 3, SelfClock: uint64(b[5]) * 2, SelfTime: uint64(b[5])}
			if r.Kind == RecordHold || r.Kind == RecordWake {
				holds[r.TID] = append(holds[r.TID], r.Time)
				nholds++
			}
			if r.Kind == RecordSleep {
				sleeps[r.TID] = append(sleeps[r.TID], r.Time)
				nsleeps++
			}
			recs = append(recs, r)
		}
		end := now + 5
		still := func(tid int32) bool { return tid%2 == 0 }
		var in Interpreter
		var ev []Event
		backs, empties := 0, 0
		for _, r := range recs {
			n := len(ev)
			in.Add(r, func(e Event) { ev = append(ev, e) })
			for _, e := range ev[n:] {
				if e.Empty {
					empties++
				} else {
					backs++
				}
				if e.End > r.Time && e.End != e.Start {
					t.Fatalf("%+v ends after the record that ended it, at %d", e, r.Time)
				}
			}
		}
		in.Close(end, still, func(e Event) { ev = append(ev, e) })
		for _, e := range ev {
			if e.End < e.Start {
				t.Fatalf("%+v ends before it starts", e)
			}
			if from := holds; !e.Empty && !slices.Contains(from[e.TID], e.Start) || e.Empty && !slices.Contains(sleeps[e.TID], e.Start) {
				t.Fatalf("%+v starts at no hold or sleep of its thread", e)
			}
			// 0 is Since's "it is Start" (kernel clocks start at boot and
			// never reach it); this harness's clock may go below it.
			if e.Since != 0 && e.Since > e.Start {
				t.Fatalf("%+v: its stretch began after it", e)
			}
		}
		if got := uint64(backs) + in.Losses.EndLost + in.Losses.OpenAtEnd; got != uint64(nholds) {
			t.Fatalf("%d holds, accounted for %d (backs %d, %+v)", nholds, got, backs, in.Losses)
		}
		if got := uint64(empties) + in.Losses.SleepsUnended; got != uint64(nsleeps) {
			t.Fatalf("%d sleeps, accounted for %d (empty stretches %d, %+v)", nsleeps, got, empties, in.Losses)
		}
	})
}

// Before 6.8 (the VM's 6.1) a queue's throttled clocks are those kept for
// load tracking, on rq_clock_pelt: a worker woken onto a queue throttled
// while none of its threads was runnable there is held from its wake, and
// the stretch, which its counter counts from the throttle, from there
// (Since): the group's union counts the counter's stretch, the thread's
// own interval its wait.
func TestIntervalsWakeKeepsWhereTheStretchBegan(t *testing.T) {
	w := wake(2, 0, 5, 30*msNs)
	// Throttled at 8 msNs on the queue's clock, which runs 2000 ns behind.
	w.Clock, w.SelfClock, w.SelfTime = uint64(30*msNs-2000), uint64(8*msNs), uint64(500*msNs)
	b := back(2, 0, 0, 5, 104*msNs)
	// Unthrottled 92 msNs after it began, at 100 msNs on CLOCK_MONOTONIC.
	b.Clock, b.SelfTime = uint64(104*msNs-2000), uint64(500*msNs+92*msNs)
	ev, _ := Intervals([]Record{w, b}, 200*msNs, none)
	want := Event{CPU: 0, TID: 2, Start: 30 * msNs, End: 100*msNs + 2000, Group: 5, Since: 8*msNs + 2000}
	assert.Equal(t, []Event{want}, ev)
	s := Summarize(ev, 0, 0, 200*msNs)
	assert.InDelta(t, 92.0, s.TotalMs, 1e-9, "the stretch, from its throttle")
	assert.InDelta(t, 70.002, s.DurationMs.Max, 1e-9, "the thread's own wait")
	// A window that begins within the stretch counts it from there.
	assert.InDelta(t, 80.0, Summarize(ev, 0, 20*msNs+2000, 200*msNs).TotalMs, 1e-9)

	// A Hold is the throttle's own switch-out: no Since; nor where the
	// clocks are unknown.
	h := w
	h.Kind = RecordHold
	ev, _ = Intervals([]Record{h, b}, 200*msNs, none)
	assert.Zero(t, ev[0].Since)
	w.SelfClock = 0
	ev, _ = Intervals([]Record{w, b}, 200*msNs, none)
	assert.Zero(t, ev[0].Since)
}

// Before 6.8 a thread that goes to sleep as its queue throttles leaves a
// stretch the counter counts with no thread held (Sleep): the group's next
// Run on that CPU reads the queue's clock, and the stretch ends where it
// grew. It counts in the group's union and in EmptyMs, in no thread's
// count or duration; a Sleep no Run ends is counted unended.
func TestIntervalsSleepLeavesAnEmptyStretch(t *testing.T) {
	s := Record{Kind: RecordSleep, CPU: 1, OnCPU: 1, TID: 4, Time: 10 * msNs, Group: 5}
	s.Clock, s.SelfClock, s.SelfTime = uint64(10*msNs-500), uint64(10*msNs-500), uint64(300*msNs)
	r := run(1, 5, 120*msNs)
	r.Clock, r.SelfTime = uint64(120*msNs-500), uint64(300*msNs+80*msNs)
	h := hold(7, 1, 5, 200*msNs)
	b := back(7, 1, 1, 5, 260*msNs)
	ev, l := Intervals([]Record{s, r, h, b}, 300*msNs, none)
	assert.Equal(t, []Event{
		{CPU: 1, TID: 4, Start: 10 * msNs, End: 90 * msNs, Group: 5, Empty: true},
		{CPU: 1, TID: 7, Start: 200 * msNs, End: 260 * msNs, Group: 5},
	}, ev)
	assert.Zero(t, l)
	sum := Summarize(ev, 0, 0, 300*msNs)
	assert.InDelta(t, 140.0, sum.TotalMs, 1e-9)
	assert.InDelta(t, 80.0, sum.EmptyMs, 1e-9)
	assert.Equal(t, 1, sum.Count)
	assert.InDelta(t, 60.0, sum.DurationMs.Max, 1e-9)
	require.Len(t, sum.Groups, 1)
	assert.InDelta(t, 80.0, sum.Groups[0].EmptyMs, 1e-9)
	assert.Equal(t, 1, sum.Groups[0].Count)

	// The Collector keeps it out of the events requests are matched to.
	var c Collector
	for _, e := range ev {
		c.Add(e)
	}
	assert.Len(t, c.Events(), 1)
	assert.InDelta(t, 140.0, c.Summarize(0, 0, 300*msNs).TotalMs, 1e-9)

	// No Run before the end: unended; nor a Run whose clocks did not grow.
	_, l = Intervals([]Record{s}, 300*msNs, none)
	assert.Equal(t, uint64(1), l.SleepsUnended)
	r.SelfTime = s.SelfTime
	ev, l = Intervals([]Record{s, r}, 300*msNs, none)
	assert.Empty(t, ev)
	assert.Equal(t, uint64(1), l.SleepsUnended)
}

// Where the kernel throttles whole queues and keeps each one's own clock
// (6.6-6.17), a thread left waiting at an unthrottle (its group's others
// ran first and used up the quota again) is held through the next stretch
// too: its hold is split at each unthrottle, each part ending where the
// queue's throttled time grew, and the gap between, where it waited for a
// CPU, is in none. Without the split the hold ended at the sum of both
// stretches from the first's start, in the gap's place.
func TestIntervalsSplitAtEachUnthrottle(t *testing.T) {
	const lag = 1000 // the queue's rq_clock runs 1000 ns behind CLOCK_MONOTONIC
	clk := func(r Record, selfClock, selfTime int64) Record {
		r.Clock, r.SelfClock, r.SelfTime = uint64(r.Time-lag), uint64(selfClock-lag), uint64(selfTime)
		return r
	}
	// Stretch 1: 10-50 ms (40 ms); thread 7 held at 10 ms. Stretch 2:
	// 60-90 ms (30 ms), seen when thread 8 is held at 60 ms; 7 comes back
	// at 95 ms.
	h7 := clk(hold(7, 0, 5, 10*msNs), 10*msNs, 100*msNs)
	h8 := clk(hold(8, 0, 5, 60*msNs), 60*msNs, 140*msNs)
	b8 := clk(back(8, 0, 0, 5, 92*msNs), 0, 170*msNs)
	b8.SelfClock = 0
	b7 := clk(back(7, 0, 0, 5, 95*msNs), 0, 170*msNs)
	b7.SelfClock = 0
	records := []Record{h7, h8, b8, b7}

	in := Interpreter{SelfClock: true}
	ev, losses := in.All(records, 100*msNs, none)
	assert.Zero(t, losses)
	assert.Equal(t, []Event{
		{CPU: 0, TID: 8, Start: 60 * msNs, End: 90 * msNs, Group: 5},
		{CPU: 0, TID: 7, Start: 10 * msNs, End: 50 * msNs, Group: 5},
		{CPU: 0, TID: 7, Start: 60 * msNs, End: 90 * msNs, Group: 5},
	}, ev, "7 and 8, held together in the second stretch, end together")

	ev, _ = Intervals(records, 100*msNs, none)
	assert.Equal(t, Event{CPU: 0, TID: 7, Start: 10 * msNs, End: 80 * msNs, Group: 5}, ev[1], "unsplit: 70 ms of stretches from the first's start")
}

func throttleRec(tid int32, cpu int, group uint64, t int64) Record {
	return Record{Kind: RecordThrottle, CPU: cpu, OnCPU: cpu, TID: tid, Time: t, Group: group}
}

func unthrottle(cpu int, group, next uint64, t int64) Record {
	return Record{Kind: RecordUnthrottle, CPU: cpu, OnCPU: cpu, Time: t, Group: group, Next: next}
}

func hooked(records []Record, now int64, stillHeld func(int32) bool) ([]Event, RecordLosses) {
	in := Interpreter{Hooked: true}
	return in.All(records, now, stillHeld)
}

// Hooked (issue 49): the kernel's unthrottle ends a hold, not the thread's
// Back, however late a busy CPU runs it, and neither a Run nor the
// queue's clocks are read; a hold of another queue, or of the same group
// on another CPU, is left alone.
func TestHookedUnthrottleEndsTheHold(t *testing.T) {
	h := hold(7, 1, 5, 10*msNs)
	h.Clock, h.SelfClock, h.SelfTime = 1, 1, 1 // read by no rule here
	ev, l := hooked([]Record{
		h, hold(8, 0, 5, 11*msNs), hold(9, 1, 6, 12*msNs),
		unthrottle(1, 5, 0, 40*msNs), run(1, 5, 45*msNs),
		back(7, 1, 1, 5, 90*msNs), back(8, 0, 0, 5, 91*msNs), back(9, 1, 1, 6, 92*msNs),
	}, 100*msNs, none)
	assert.Equal(t, []Event{
		{CPU: 1, TID: 7, Start: 10 * msNs, End: 40 * msNs, Group: 5},
		{CPU: 0, TID: 8, Start: 11 * msNs, End: 91 * msNs, Group: 5},
		{CPU: 1, TID: 9, Start: 12 * msNs, End: 92 * msNs, Group: 6},
	}, ev)
	assert.Zero(t, l)
}

// Both limits binding: a container (5) unthrottled while its pod (4) is
// still throttled itself leaves its thread held by the pod: the hold is
// split there, the container's part ending at its unthrottle and the
// pod's at the pod's; a thread still waiting when its queue, or one above
// it, throttles again is held again, from that throttle, under that
// group. A throttle told to another thread begins nothing for this one.
func TestHookedSplitsWhereAnAncestorHoldsOn(t *testing.T) {
	ev, _ := hooked([]Record{
		hold(7, 1, 5, 10*msNs),
		unthrottle(1, 5, 4, 30*msNs),
		unthrottle(1, 4, 0, 50*msNs),
		throttleRec(8, 1, 6, 55*msNs),
		throttleRec(7, 1, 5, 60*msNs),
		unthrottle(1, 5, 0, 70*msNs),
		throttleRec(7, 1, 4, 72*msNs),
		unthrottle(1, 4, 0, 75*msNs),
		back(7, 1, 1, 5, 80*msNs),
	}, 100*msNs, none)
	assert.Equal(t, []Event{
		{CPU: 1, TID: 7, Start: 10 * msNs, End: 30 * msNs, Group: 5},
		{CPU: 1, TID: 7, Start: 30 * msNs, End: 50 * msNs, Group: 4},
		{CPU: 1, TID: 7, Start: 60 * msNs, End: 70 * msNs, Group: 5},
		{CPU: 1, TID: 7, Start: 72 * msNs, End: 75 * msNs, Group: 4},
	}, ev)
}

// A hold still open at the end is ended there, part by part; an
// unthrottle stamped before the hold (another CPU's record, written
// after) ends nothing; before 6.6 a Sleep's empty stretch ends at its
// queue's unthrottle.
func TestHookedEdges(t *testing.T) {
	s := Record{Kind: RecordSleep, CPU: 2, OnCPU: 2, TID: 3, Time: 5 * msNs, Group: 9}
	ev, l := hooked([]Record{
		s,
		hold(7, 1, 5, 10*msNs),
		unthrottle(1, 5, 0, 9*msNs),
		unthrottle(1, 5, 4, 30*msNs),
		unthrottle(2, 9, 0, 20*msNs),
	}, 100*msNs, func(tid int32) bool { return tid == 7 })
	assert.Equal(t, []Event{
		{CPU: 2, TID: 3, Start: 5 * msNs, End: 20 * msNs, Group: 9, Empty: true},
		{CPU: 1, TID: 7, Start: 10 * msNs, End: 30 * msNs, Group: 5},
		{CPU: 1, TID: 7, Start: 30 * msNs, End: 100 * msNs, Group: 4},
	}, ev)
	assert.Equal(t, uint64(1), l.OpenAtEnd)
	assert.Zero(t, l.SleepsUnended)
}

// Before 6.6 (EmptyStretches) a container's hold whose pod is throttled
// itself too is in the pod's stretch from its start, which the pod's
// counter counts though the container's queue left it; from 6.6 only from
// the container's unthrottle. A throttle of the pod while the thread is
// held by the container (another container of the pod ran there) is in
// the pod's stretch on every kernel.
func TestHookedOverlappingGroups(t *testing.T) {
	h := hold(7, 1, 5, 10*msNs)
	h.Next = 4
	stream := []Record{h, unthrottle(1, 5, 4, 30*msNs), unthrottle(1, 4, 0, 50*msNs), back(7, 1, 1, 5, 60*msNs)}
	for _, empty := range []bool{true, false} {
		in := Interpreter{Hooked: true, EmptyStretches: empty}
		ev, _ := in.All(stream, 100*msNs, none)
		podStart := 30 * msNs
		if empty {
			podStart = 10 * msNs
		}
		assert.Equal(t, []Event{
			{CPU: 1, TID: 7, Start: 10 * msNs, End: 30 * msNs, Group: 5},
			{CPU: 1, TID: 7, Start: podStart, End: 50 * msNs, Group: 4},
		}, ev, "empty stretches counted: %v", empty)
	}
	ev, _ := hooked([]Record{
		hold(7, 1, 5, 10*msNs), throttleRec(7, 1, 4, 20*msNs), throttleRec(7, 1, 5, 21*msNs),
		unthrottle(1, 4, 0, 25*msNs), unthrottle(1, 5, 0, 30*msNs), back(7, 1, 1, 5, 60*msNs),
	}, 100*msNs, none)
	assert.Equal(t, []Event{
		{CPU: 1, TID: 7, Start: 10 * msNs, End: 30 * msNs, Group: 5},
		{CPU: 1, TID: 7, Start: 20 * msNs, End: 25 * msNs, Group: 4},
	}, ev)
}
