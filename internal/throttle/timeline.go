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
	// CPU is the CPU it was switched on or off, or woken onto (the queue
	// it waits in); Group its own group (kernfs id), 0 where unknown.
	CPU   int
	Group uint64
	// Woken: a wake-up, which leaves a thread already on a CPU or
	// runnable as it was (the kernel wakes a thread that has not yet
	// gone to sleep).
	Woken bool
}

func stateOf(r Record) State {
	s := State{TID: r.TID, Time: r.Time, CPU: r.CPU, Group: r.Group}
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
	groupOf map[int32]uint64
	pools   map[uint64]*timeline // built on first use (pool)
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
// kernel's) and the held intervals among events. What a thread did before
// its first state is what that state ended: switched in, it was waiting;
// switched out, on a CPU; woken, off CPU. A thread's runnable stretches
// are held where its own held intervals cover them, else waiting; a held
// interval outside them (a stretch the states missed) counts for nothing.
//
// queued says the kernel throttles whole run queues (before 6.18,
// ModelQueue and ModelQueueClock): a thread waiting in its group's queue
// on a CPU is held by that queue's throttle whether or not it was the one
// switched out by it (a hold is recorded for the thread that was
// running). Its runnable stretches on that CPU are then held too where a
// thread of the same group was held there. Where threads are throttled
// one by one (6.18+), one held thread holds no other.
func NewTimelines(states []State, events []Event, queued bool) *Timelines {
	byTID := map[int32][]State{}
	groupOf := map[int32]uint64{}
	for _, s := range states {
		byTID[s.TID] = append(byTID[s.TID], s)
		if s.Group != 0 {
			groupOf[s.TID] = s.Group
		}
	}
	type queue struct {
		group uint64
		cpu   int
	}
	own := map[int32][]Interval{}
	byQueue := map[queue][]Interval{}
	for _, e := range events {
		if e.Empty || e.End <= e.Start {
			continue
		}
		if _, ok := byTID[e.TID]; !ok {
			continue
		}
		own[e.TID] = append(own[e.TID], Interval{e.Start, e.End})
		if g := groupOf[e.TID]; queued && g != 0 {
			q := queue{g, e.CPU}
			byQueue[q] = append(byQueue[q], Interval{e.Start, e.End})
		}
	}
	for q, ivs := range byQueue {
		byQueue[q] = mergeInPlace(ivs)
	}
	t := &Timelines{threads: make(map[int32]*timeline, len(byTID)), groupOf: groupOf, pools: map[uint64]*timeline{}}
	for tid, ss := range byTID {
		slices.SortStableFunc(ss, func(a, b State) int { return cmp.Compare(a.Time, b.Time) })
		mine := mergeInPlace(own[tid])
		g := groupOf[tid]
		held := func(cpu int) []Interval {
			shared := byQueue[queue{g, cpu}]
			if cpu < 0 || len(shared) == 0 {
				return mine
			}
			return mergeInPlace(append(slices.Clone(mine), shared...))
		}
		t.threads[tid] = build(ss, mine, held)
	}
	return t
}

// build is one thread's timeline from its states, sorted; mine are its
// own held intervals, merged, and held(cpu) those that hold it while it
// waits on cpu (-1: not known), merged.
func build(ss []State, mine []Interval, held func(cpu int) []Interval) *timeline {
	tl := &timeline{}
	switch first := ss[0]; {
	case first.Woken:
		tl.before = OffCPU
	case first.To == OnCPU:
		tl.before = Waiting
	default:
		tl.before = OnCPU
	}
	// The states, as runs of one cause, each runnable one with the CPU
	// whose queue it waits in (-1 where not known: before the first
	// state).
	at := []int64{}
	cause := []Cause{}
	cpus := []int{}
	cur := tl.before
	if len(mine) > 0 && mine[0].Start < ss[0].Time {
		// The stretch before the first state may be held too.
		at, cause, cpus = append(at, mine[0].Start), append(cause, cur), append(cpus, -1)
	}
	for _, s := range ss {
		if s.Woken && cur != OffCPU || s.To == cur {
			continue
		}
		cur = s.To
		at, cause, cpus = append(at, s.Time), append(cause, s.To), append(cpus, s.CPU)
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
		h := held(cpus[i])
		x := at[i]
		k := sort.Search(len(h), func(j int) bool { return h[j].End > x })
		for ; k < len(h) && h[k].Start < end; k++ {
			if s := max(h[k].Start, x); s > x {
				tl.add(x, Waiting)
				x = s
			}
			tl.add(x, Held)
			x = min(h[k].End, end)
		}
		if x < end {
			tl.add(x, Waiting)
		}
	}
	tl.sums()
	return tl
}

// sums fills sum from the stretches.
func (tl *timeline) sums() {
	tl.sum = make([]Parts, len(tl.at))
	for i := 1; i < len(tl.at); i++ {
		tl.sum[i] = tl.sum[i-1]
		tl.sum[i][tl.cause[i-1]] += tl.at[i] - tl.at[i-1]
	}
}

// pool is the threads of group g (AnyGroup: every thread traced) as one
// timeline: at each instant the cause of the thread furthest along, in
// Cause's order (one on a CPU makes the pool's time on CPU; else one held
// makes it held; else one waiting, waiting; else off CPU). A thread
// counts from its first state on: before it, it may not yet have been in
// the group (an instance's process is made outside its slice), and a
// pool none of whose threads is known yet is off CPU. nil where no
// thread of g was traced.
func (t *Timelines) pool(g uint64) *timeline {
	if tl, ok := t.pools[g]; ok {
		return tl
	}
	type change struct {
		at int64
		c  Cause
		n  int // +1: a thread enters cause c; -1: leaves it
	}
	var changes []change
	for tid, tl := range t.threads {
		if g != AnyGroup && t.groupOf[tid] != g {
			continue
		}
		for i, x := range tl.at {
			if i > 0 {
				changes = append(changes, change{x, tl.cause[i-1], -1})
			}
			changes = append(changes, change{x, tl.cause[i], +1})
		}
	}
	var p *timeline
	if len(changes) > 0 {
		slices.SortStableFunc(changes, func(a, b change) int { return cmp.Compare(a.at, b.at) })
		p = &timeline{before: OffCPU}
		var in [numCauses]int
		for i, ch := range changes {
			in[ch.c] += ch.n
			if i+1 < len(changes) && changes[i+1].at == ch.at {
				continue // the instant's other changes first
			}
			c := OffCPU
			for k := range in {
				if in[k] > 0 {
					c = Cause(k)
					break
				}
			}
			p.add(ch.at, c)
		}
		p.sums()
	}
	t.pools[g] = p
	return p
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
	return tl.split(s, e, ok)
}

// SplitPool is the time in [s, e) of group g's threads as one (pool);
// false where no thread of g was traced.
func (t *Timelines) SplitPool(g uint64, s, e int64) (Parts, bool) {
	tl := t.pool(g)
	return tl.split(s, e, tl != nil)
}

func (tl *timeline) split(s, e int64, ok bool) (Parts, bool) {
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
