package throttle

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func on(tid int32, t int64) State        { return State{TID: tid, Time: t, To: OnCPU} }
func preempted(tid int32, t int64) State { return State{TID: tid, Time: t, To: Waiting} }
func slept(tid int32, t int64) State     { return State{TID: tid, Time: t, To: OffCPU} }
func woken(tid int32, t int64) State     { return State{TID: tid, Time: t, To: Waiting, Woken: true} }

func parts(on, held, waiting, off int64) Parts {
	return Parts{OnCPU: on, Held: held, Waiting: waiting, OffCPU: off}
}

func TestTimelineSplit(t *testing.T) {
	// Thread 7: asleep until 10, runnable to 15, on a CPU to 20,
	// throttled out and held 20-50, waits for a CPU to 60, runs to 70,
	// sleeps. Thread 8's hold is not thread 7's.
	states := []State{on(7, 15), woken(7, 10), preempted(7, 20), on(7, 60), slept(7, 70), on(8, 0)}
	events := []Event{{TID: 7, Start: 20, End: 50}, {TID: 8, Start: 0, End: 100}}
	tl := NewTimelines(states, events, false)
	for _, c := range []struct {
		name string
		s, e int64
		want Parts
	}{
		{"the whole life", 0, 100, parts(15, 30, 15, 40)},
		{"inside a hold", 25, 35, parts(0, 10, 0, 0)},
		{"across a hold's end", 45, 65, parts(5, 5, 10, 0)},
		{"before the first state", -10, 5, parts(0, 0, 0, 15)},
		{"after the last", 80, 90, parts(0, 0, 0, 10)},
		{"empty", 30, 30, parts(0, 0, 0, 0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := tl.Split(7, c.s, c.e)
			require.True(t, ok)
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.e-c.s, got.Total())
		})
	}
	_, ok := tl.Split(9, 0, 10)
	assert.False(t, ok, "a thread with no state is unknown")
	got, _ := tl.Split(8, -10, 10)
	assert.Equal(t, parts(10, 0, 10, 0), got, "switched in at 0: waiting before, running after, where its hold counts for nothing")
}

func TestTimelineWakeUpOfARunningThreadChangesNothing(t *testing.T) {
	tl := NewTimelines([]State{on(1, 0), woken(1, 5), slept(1, 10), woken(1, 12), woken(1, 13), on(1, 20)}, nil, false)
	got, _ := tl.Split(1, 0, 20)
	assert.Equal(t, parts(10, 0, 8, 2), got)
}

func TestTimelineHeldBeforeTheFirstState(t *testing.T) {
	// Switched in at 12 after a hold from 0 to 10 that began before the
	// trace saw the thread: waiting before its first state, held where
	// the hold covers it.
	tl := NewTimelines([]State{on(3, 12)}, []Event{{TID: 3, Start: 0, End: 10}}, false)
	got, _ := tl.Split(3, -5, 12)
	assert.Equal(t, parts(0, 10, 7, 0), got)
}

func TestTimelineHoldOutsideARunnableStretchCountsForNothing(t *testing.T) {
	// A hold the states say the thread was running through (its switch
	// out lost): the states win.
	tl := NewTimelines([]State{on(3, 0), slept(3, 100)}, []Event{{TID: 3, Start: 20, End: 40}, {TID: 3, Start: 50, End: 60, Empty: true}}, false)
	got, _ := tl.Split(3, 0, 100)
	assert.Equal(t, parts(100, 0, 0, 0), got)
}

func TestTimelinePartsSumToTheSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var states []State
		var events []Event
		var x int64
		for range 1 + r.IntN(40) {
			x += r.Int64N(50)
			switch r.IntN(4) {
			case 0:
				states = append(states, on(1, x))
			case 1:
				states = append(states, preempted(1, x))
				events = append(events, Event{TID: 1, Start: x, End: x + r.Int64N(80)})
			case 2:
				states = append(states, slept(1, x))
			default:
				states = append(states, woken(1, x))
			}
		}
		tl := NewTimelines(states, events, false)
		s := r.Int64N(x+100) - 50
		e := s + r.Int64N(x+100)
		got, ok := tl.Split(1, s, e)
		require.True(t, ok)
		require.Equal(t, e-s, got.Total(), "%v %v [%d, %d): %v", states, events, s, e, got)
		for c, v := range got {
			require.GreaterOrEqual(t, v, int64(0), "cause %d", c)
		}
	}
}

func TestSummarizeBreakdown(t *testing.T) {
	// 98 fast requests on a CPU, two slow ones mostly held, one unknown.
	var ps []Parts
	var known []bool
	for range 98 {
		ps, known = append(ps, parts(2e6, 0, 0, 0)), append(known, true)
	}
	ps, known = append(ps, parts(2e6, 60e6, 10e6, 8e6), parts(2e6, 50e6, 0, 8e6), Parts{}), append(known, true, true, false)
	b := SummarizeBreakdown(ps, known, ThreadsWorker)
	require.NotNil(t, b)
	assert.Equal(t, 100, b.Count)
	assert.Equal(t, 1, b.Unknown)
	assert.Equal(t, 2, b.P99Count)
	assert.InDelta(t, 110.0/140, b.P99Share.Held, 1e-9)
	assert.InDelta(t, 10.0/140, b.P99Share.Waiting, 1e-9)
	assert.InDelta(t, 4.0/140, b.P99Share.OnCPU, 1e-9)
	assert.InDelta(t, 16.0/140, b.P99Share.OffCPU, 1e-9)
	assert.Equal(t, 2.0, b.OnCPUMs.P99)
	assert.Equal(t, 50.0, b.HeldMs.P99)
	assert.Equal(t, 0.0, b.HeldMs.P50)
	assert.Equal(t, Held, Dominant(b.P99Share))
	assert.Equal(t, "p99 requests: 79% held by the quota, 11% off CPU, 7% waiting for a CPU, 3% on CPU (1 of 101 not traced)",
		BreakdownLine(b, "requests"))
	assert.Nil(t, SummarizeBreakdown([]Parts{{}}, []bool{false}, ThreadsWorker))
	assert.Empty(t, BreakdownLine(nil, "requests"))
}

// An iteration's time is the mean of its workers' threads' parts, which
// still sum to its time; a worker not named, or not traced, leaves it
// unknown.
func TestThreadsParts(t *testing.T) {
	// Thread 1 runs 0-60 then is held to 100; thread 2 waits 0-30, runs
	// to 100.
	tl := NewTimelines([]State{on(1, 0), preempted(1, 60), on(2, 30)}, []Event{{TID: 1, Start: 60, End: 100}}, false)
	spans := []Span{{Start: 0, End: 100}, {Start: 0, End: 100}, {Start: 0, End: 100}, {Start: 0, End: 100}}
	ps, known := tl.ThreadsParts(spans, [][]int32{{1, 2}, {1, 0}, {1, 9}, nil})
	assert.Equal(t, []bool{true, false, false, false}, known)
	assert.Equal(t, parts(65, 20, 15, 0), ps[0], "(60+70)/2 on, 40/2 held, 30/2 waiting")
	assert.Equal(t, int64(100), ps[0].Total())
	odd := []Span{{Start: 0, End: 101}}
	ps, _ = NewTimelines([]State{on(1, 0), on(2, 0), on(3, 0), slept(1, 1), slept(2, 1), slept(3, 1)}, nil, false).ThreadsParts(odd, [][]int32{{1, 2, 3}})
	assert.Equal(t, int64(101), ps[0].Total(), "the integer mean's remainder kept")
}

// Where the kernel throttles whole queues, a thread waiting in its
// group's queue on a CPU is held while a thread of that group is held
// there (the hold is recorded for the one that was running); not a thread
// of another group, nor one waiting on another CPU, nor anyone where
// threads are throttled one by one.
func TestTimelineQueuedThreadsHeldTogether(t *testing.T) {
	at := func(s State, cpu int, group uint64) State { s.CPU, s.Group = cpu, group; return s }
	states := []State{
		at(on(1, 0), 0, 5), at(preempted(1, 10), 0, 5), at(on(1, 50), 0, 5),
		at(preempted(2, 5), 0, 5), at(on(2, 60), 0, 5),
		at(preempted(3, 5), 0, 6), at(on(3, 60), 0, 6),
		at(preempted(4, 5), 1, 5), at(on(4, 60), 1, 5),
	}
	events := []Event{{CPU: 0, TID: 1, Start: 10, End: 50, Group: 5}}
	split := func(queued bool, tid int32) Parts {
		p, ok := NewTimelines(states, events, queued).Split(tid, 5, 60)
		require.True(t, ok)
		return p
	}
	assert.Equal(t, parts(0, 40, 15, 0), split(true, 2), "held with thread 1 on CPU 0")
	assert.Equal(t, parts(0, 0, 55, 0), split(false, 2), "threads throttled one by one")
	assert.Equal(t, parts(0, 0, 55, 0), split(true, 3), "another group")
	assert.Equal(t, parts(0, 0, 55, 0), split(true, 4), "another CPU")
	assert.Equal(t, parts(15, 40, 0, 0), split(true, 1), "thread 1's own hold")
}

func inGroup(g uint64, ss ...State) []State {
	for i := range ss {
		ss[i].Group = g
	}
	return ss
}

// A pool (an instance's or a server's threads) is, at each instant, as
// far along as its furthest thread: on a CPU if one runs, else held if
// one is held, else waiting if one waits, else off CPU; a thread counts
// from its first state, and the threads of another group not at all.
func TestTimelinePool(t *testing.T) {
	// Group 5: thread 1 is woken at 10, runs 12-20, is held 20-40 and
	// runs to 45, then sleeps; thread 2 first seen switched out at 30
	// (running from 25, a state the trace missed: it does not count),
	// asleep until woken at 50, runs 52-60. Thread 3, of group 6, runs
	// throughout.
	states := append(inGroup(5, woken(1, 10), on(1, 12), preempted(1, 20), on(1, 40), slept(1, 45),
		slept(2, 30), woken(2, 50), on(2, 52), slept(2, 60)), inGroup(6, on(3, 0))...)
	events := []Event{{TID: 1, Start: 20, End: 40}}
	tl := NewTimelines(states, events, false)
	for _, c := range []struct {
		name string
		g    uint64
		s, e int64
		want Parts
	}{
		{"before any thread is seen", 5, 0, 10, parts(0, 0, 0, 10)},
		{"the whole", 5, 0, 70, parts(21, 20, 4, 25)},
		{"one held, the other asleep", 5, 20, 40, parts(0, 20, 0, 0)},
		{"every thread", AnyGroup, 0, 70, parts(70, 0, 0, 0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := tl.SplitPool(c.g, c.s, c.e)
			require.True(t, ok)
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.e-c.s, got.Total())
		})
	}
	_, ok := tl.SplitPool(7, 0, 10)
	assert.False(t, ok, "a group with no thread traced is unknown")
	p, known := tl.SpanParts([]Span{{Start: 40, End: 55, Group: 5}, {Start: 40, End: 55, TID: 1}, {Start: 40, End: 55}})
	assert.Equal(t, []bool{true, true, false}, known, "a pool, a thread, neither")
	assert.Equal(t, parts(8, 0, 2, 5), p[0], "thread 1 runs to 45; both asleep to 50; thread 2 waits to 52, runs")
	assert.Equal(t, parts(5, 0, 0, 10), p[1])
}
