package throttle

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Cause is what a traced thread was doing at an instant, the four parts a
// request's time is split into (Timelines).
type Cause uint8

const (
	// OnCPU: running.
	OnCPU Cause = iota
	// Held: runnable, and held off its CPU by a throttled quota (the
	// thread's own held intervals, Event).
	Held
	// Waiting: runnable and not held: waiting for a CPU others held (a
	// neighbour, or its own siblings beyond the CPUs it may use).
	Waiting
	// OffCPU: asleep or blocked (I/O, a lock, a timer: the work's own
	// waits).
	OffCPU
	numCauses
)

// State is one change of a traced thread's state, from the tracer's
// switch and wake-up records: To is OnCPU, Waiting (runnable: how much of
// it the quota held, the thread's held intervals say) or OffCPU.
type State struct {
	TID  int32
	Time int64
	To   Cause
	// Woken: a wake-up, which leaves a thread already on a CPU or
	// runnable as it was (the kernel wakes a thread that has not yet
	// gone to sleep).
	Woken bool
}

func stateOf(r Record) State {
	s := State{TID: r.TID, Time: r.Time}
	switch r.Kind {
	case RecordOff:
		s.To = OffCPU
		if r.Next != 0 {
			s.To = Waiting
		}
	case RecordOn:
		s.To = OnCPU
	default:
		s.To, s.Woken = Waiting, true
	}
	return s
}

// Parts is a span's time by cause, in ns; they sum to the span's length.
type Parts [numCauses]int64

// Total is the parts' sum.
func (p Parts) Total() int64 { return p[OnCPU] + p[Held] + p[Waiting] + p[OffCPU] }

// Timelines are traced threads' lives, each cut into stretches on a CPU,
// held by the quota, waiting for a CPU and off CPU, from their states
// and their held intervals: a span of a thread's (a request its worker
// served) is split by where its stretches fall (Split).
type Timelines struct {
	threads map[int32]*timeline
}

// timeline is one thread's: cause[i] from at[i] to at[i+1] (the last on
// to any later time), before before at[0]; sum[i] is each cause's time
// from at[0] to at[i].
type timeline struct {
	at     []int64
	cause  []Cause
	before Cause
	sum    []Parts
}

// NewTimelines builds each thread's timeline from its states (any order:
// sorted here by time, equal times kept in the order given, which is the
// kernel's) and its held intervals among events. What a thread did before
// its first state is what that state ended: switched in, it was waiting;
// switched out, on a CPU; woken, off CPU. A thread's runnable stretches
// are held where its own held intervals cover them, else waiting; a held
// interval outside them (a stretch the states missed) counts for nothing.
func NewTimelines(states []State, events []Event) *Timelines {
	byTID := map[int32][]State{}
	for _, s := range states {
		byTID[s.TID] = append(byTID[s.TID], s)
	}
	held := map[int32][]Interval{}
	for _, e := range events {
		if !e.Empty && e.End > e.Start {
			if _, ok := byTID[e.TID]; ok {
				held[e.TID] = append(held[e.TID], Interval{e.Start, e.End})
			}
		}
	}
	t := &Timelines{threads: make(map[int32]*timeline, len(byTID))}
	for tid, ss := range byTID {
		slices.SortStableFunc(ss, func(a, b State) int { return cmp.Compare(a.Time, b.Time) })
		t.threads[tid] = build(ss, mergeInPlace(held[tid]))
	}
	return t
}

func build(ss []State, held []Interval) *timeline {
	tl := &timeline{}
	switch first := ss[0]; {
	case first.Woken:
		tl.before = OffCPU
	case first.To == OnCPU:
		tl.before = Waiting
	default:
		tl.before = OnCPU
	}
	// The states, as runs of one cause.
	at := []int64{}
	cause := []Cause{}
	cur := tl.before
	if len(held) > 0 && held[0].Start < ss[0].Time {
		// The stretch before the first state may be held too.
		at, cause = append(at, held[0].Start), append(cause, cur)
	}
	for _, s := range ss {
		if s.Woken && cur != OffCPU || s.To == cur {
			continue
		}
		cur = s.To
		at, cause = append(at, s.Time), append(cause, s.To)
	}
	// The runnable stretches cut by the held intervals.
	for i := range at {
		end := int64(math.MaxInt64)
		if i+1 < len(at) {
			end = at[i+1]
		}
		if cause[i] != Waiting {
			tl.add(at[i], cause[i])
			continue
		}
		x := at[i]
		k := sort.Search(len(held), func(j int) bool { return held[j].End > x })
		for ; k < len(held) && held[k].Start < end; k++ {
			if s := max(held[k].Start, x); s > x {
				tl.add(x, Waiting)
				x = s
			}
			tl.add(x, Held)
			x = min(held[k].End, end)
		}
		if x < end {
			tl.add(x, Waiting)
		}
	}
	tl.sum = make([]Parts, len(tl.at))
	for i := 1; i < len(tl.at); i++ {
		tl.sum[i] = tl.sum[i-1]
		tl.sum[i][tl.cause[i-1]] += tl.at[i] - tl.at[i-1]
	}
	return tl
}

// add starts a stretch of cause c at x: one begun at the same instant is
// replaced, and one after a stretch of the same cause is merged into it.
func (tl *timeline) add(x int64, c Cause) {
	n := len(tl.at)
	if n > 0 && tl.at[n-1] == x {
		n--
		tl.at, tl.cause = tl.at[:n], tl.cause[:n]
	}
	if n > 0 && tl.cause[n-1] == c {
		return
	}
	tl.at, tl.cause = append(tl.at, x), append(tl.cause, c)
}

// upTo is each cause's time from at[0] to x (negative for x before it).
func (tl *timeline) upTo(x int64) Parts {
	var p Parts
	if x < tl.at[0] {
		p[tl.before] = x - tl.at[0]
		return p
	}
	k := sort.Search(len(tl.at), func(i int) bool { return tl.at[i] > x }) - 1
	p = tl.sum[k]
	p[tl.cause[k]] += x - tl.at[k]
	return p
}

// Split is thread tid's time in [s, e) by cause; false where no state of
// tid was seen (its time is unknown).
func (t *Timelines) Split(tid int32, s, e int64) (Parts, bool) {
	tl, ok := t.threads[tid]
	if !ok || e < s {
		return Parts{}, ok
	}
	a, b := tl.upTo(s), tl.upTo(e)
	var p Parts
	for c := range p {
		p[c] = b[c] - a[c]
	}
	return p, true
}

// Threads is how many threads have a timeline.
func (t *Timelines) Threads() int { return len(t.threads) }
