package throttle

import (
	"cmp"
	"maps"
	"slices"
)

// What the kernel records (internal/tracer's BPF program) and what it
// means: the program writes what the scheduler did, and Interpreter
// decides where each held interval starts and ends.

// RecordKind says what a Record saw.
type RecordKind uint32

const (
	// RecordHold: a thread of a traced group switched out still
	// runnable while throttled (the thread itself where the kernel
	// throttles threads one by one, 6.18+; else its run queue).
	RecordHold RecordKind = 1
	// RecordWake: a thread woken onto a throttled run queue, where it
	// waits without having run (kernels that throttle whole queues).
	RecordWake RecordKind = 2
	// RecordBack: a held thread switched in again, with its throttled
	// queue's clocks read then.
	RecordBack RecordKind = 3
	// RecordRun: a traced group running again on a CPU where it had a
	// Hold or a Sleep since its last Run (before 6.6), with the queue's
	// clocks.
	RecordRun RecordKind = 4
	// RecordSleep: a thread of a traced group gone to sleep leaving its
	// queue throttled (before 6.6): a stretch that kernel's counter
	// counts, with none of the group's threads held; its Run ends it.
	RecordSleep RecordKind = 5
	// RecordThrottle: a held thread's (TID) own run queue, or one above
	// it, of Group, throttled on CPU (only where the tracer hooks the
	// kernel's throttle_cfs_rq: Interpreter.Hooked).
	RecordThrottle RecordKind = 6
	// RecordUnthrottle: such a queue unthrottled, with the first of its
	// ancestors still throttled itself (Next), which holds its threads on.
	RecordUnthrottle RecordKind = 7
	// RecordOff: a traced thread switched out (Next 1: still runnable,
	// preempted or throttled; 0: asleep or blocked).
	RecordOff RecordKind = 8
	// RecordOn: a traced thread switched in.
	RecordOn RecordKind = 9
	// RecordWoken: a traced thread woken, or new.
	RecordWoken RecordKind = 10
)

// State says whether k is a thread's change of state (RecordOff,
// RecordOn, RecordWoken), which holds and ends do not use.
func (k RecordKind) State() bool { return k >= RecordOff && k <= RecordWoken }

// Record is one thing the kernel saw. Times are CLOCK_MONOTONIC ns; the
// clocks are the throttled queue's throttled clocks, where its stretch
// began (SelfClock) and the sum of its stretches (SelfTime), and its CPU's
// clock they run on (Clock): throttled_clock_self on rq_clock (6.6+),
// else the ones kept for load tracking (throttled_clock_pelt on
// rq_clock_pelt, 5.19+; throttled_clock_task on rq_clock_task); zero
// where unknown.
type Record struct {
	Kind  RecordKind
	CPU   int   // the throttled queue's CPU; Run: the CPU the group ran on
	OnCPU int   // where it was recorded; Back: the CPU the thread came back on
	TID   int32 // the thread; Run: the one that ran
	Time  int64
	Group uint64 // the throttled queue's cgroup (kernfs id)

	// The throttled queue's clocks; on a thread's state (Off, On,
	// Woken), Clock is its id in the tracer's PID namespace where that is
	// not the root one (0: none, or not visible there).
	Clock, SelfClock, SelfTime uint64

	// Next, on an Unthrottle (and a Hold or Wake where hooked): the group
	// of the first ancestor queue on the same CPU still throttled itself;
	// 0 where none is.
	Next uint64
}

// RecordLosses are the intervals records could not give.
type RecordLosses struct {
	// EndLost: holds whose Back never came (lost to a full ring buffer:
	// the thread was held again, or was no longer held at the end).
	EndLost uint64
	// Orphans: Backs with no hold before them (the hold was lost, or
	// came before the trace): no interval, nothing to count twice.
	Orphans uint64
	// OpenAtEnd: not a loss, the holds still open at the end, handed on
	// as ending then.
	OpenAtEnd uint64
	// SleepsUnended: Sleeps whose stretch no Run ended (their group did
	// not run on that CPU again before the end, or the Run was lost):
	// stretches the counter has and the trace does not.
	SleepsUnended uint64
}

type queueKey struct {
	group uint64
	cpu   int
}

type openHold struct {
	Record
	runEnd int64 // the first Run of its queue after its start; 0 if none
	// stretches are its queue's throttled stretches seen since its start,
	// where the queue keeps its own throttled clock (Interpreter.
	// SelfClock): its hold's own first.
	stretches []stretch
	// parts are its stretches as the kernel's throttles and unthrottles
	// told them (Interpreter.Hooked), each under a group whose throttle
	// held the thread: its own queue's first. Two groups' parts may
	// overlap (a container and its pod both throttled); one group's do
	// not.
	parts []part
}

// part is one stretch of a hold under one group's throttle, from start to
// end (0 while it lasts).
type part struct {
	group      uint64
	start, end int64
}

// stretch is one throttled stretch of a queue, as its records saw it: it
// began at start on the queue's clock, when the sum of its earlier
// stretches was sum; (t, c) is one instant on CLOCK_MONOTONIC and on that
// clock, to map the one onto the other; end is where it ended on
// CLOCK_MONOTONIC, 0 while that is not known.
type stretch struct {
	start, sum uint64
	t          int64
	c          uint64
	end        int64
}

// Interpreter turns a stream of records, in the order the kernel wrote
// them, into held intervals. The zero value is ready. Not safe for
// concurrent use.
type Interpreter struct {
	// SelfClock says the records' clocks are the queue's own throttled
	// clock on rq_clock (cfs_rq.throttled_clock_self, 6.6+), set by the
	// tracer from what it loaded: a hold on a kernel that throttles whole
	// queues can then be split at each unthrottle. A thread left waiting
	// when its queue is unthrottled (its group's others ran first, and
	// used up the quota again) is held through several stretches, and
	// between them waits for a CPU, not for the quota: on 6.12 such holds
	// ended at the sum of all their stretches from the first's start,
	// and threads held together ended up to 30 ms apart (TestTrace-
	// ThreadsHeldTogether, the 6.12 lane).
	SelfClock bool
	// Hooked says the stream has the kernel's throttles and unthrottles
	// of the queues that hold traced threads (RecordThrottle,
	// RecordUnthrottle), set by the tracer where its hooks attached: a
	// hold then ends at its queue's unthrottle, on every kernel, and is
	// split there, each part under the group whose throttle held the
	// thread: a container's own, then its pod's where the pod's still
	// holds it (both limits binding), and again at each throttle it
	// waits through. Clocks and Runs are not read.
	Hooked bool
	// EmptyStretches says the kernel's counters count a queue's stretch
	// though none of its entities is runnable (before 6.6): where hooked,
	// a hold whose queue's ancestor is throttled itself too (Next) is
	// then in the ancestor's stretch from the start, which that
	// ancestor's counter counts although the held queue left it; from
	// 6.6 the ancestor's counter counts only from when the queue comes
	// back (its unthrottle).
	EmptyStretches bool

	open    map[int32]*openHold
	lastRun map[queueKey]int64
	sleeps  map[queueKey]Record // the Sleep of each queue with no Run since
	Losses  RecordLosses

	// OnState, when set, takes each change of a traced thread's state
	// (RecordOff, RecordOn, RecordWoken), which holds and ends do not
	// use: the timelines a breakdown is cut from (Timelines).
	OnState func(State)
}

// Add takes the next record and hands each interval it ends to emit.
func (in *Interpreter) Add(r Record, emit func(Event)) {
	if r.Kind.State() {
		if in.OnState != nil {
			in.OnState(stateOf(r))
		}
		return
	}
	if in.open == nil {
		in.open = map[int32]*openHold{}
		in.lastRun = map[queueKey]int64{}
		in.sleeps = map[queueKey]Record{}
	}
	if in.SelfClock && r.Clock != 0 {
		for _, h := range in.open {
			if h.Group == r.Group && h.CPU == r.CPU && h.Time <= r.Time && r.TID != h.TID {
				h.observe(r)
			}
		}
	}
	switch r.Kind {
	case RecordHold, RecordWake:
		if _, ok := in.open[r.TID]; ok {
			// Held again with no Back between: that Back was lost,
			// and where the first interval ended is unknown.
			in.Losses.EndLost++
		}
		h := &openHold{Record: r}
		if in.Hooked {
			h.parts = []part{{group: r.Group, start: r.Time}}
			if in.EmptyStretches && r.Next != 0 {
				h.parts = append(h.parts, part{group: r.Next, start: r.Time})
			}
		}
		if in.SelfClock && r.SelfClock != 0 && r.Clock != 0 {
			h.stretches = []stretch{{start: r.SelfClock, sum: r.SelfTime, t: r.Time, c: r.Clock}}
		}
		// A Run stamped after the start but written before it (another
		// CPU's record) still ends it.
		if t := in.lastRun[queueKey{r.Group, r.CPU}]; t > r.Time {
			h.runEnd = t
		}
		in.open[r.TID] = h
	case RecordSleep:
		q := queueKey{r.Group, r.CPU}
		if _, ok := in.sleeps[q]; ok {
			in.Losses.SleepsUnended++ // its Run was lost
		}
		in.sleeps[q] = r
	case RecordRun:
		q := queueKey{r.Group, r.CPU}
		// A Run stamped before the Sleep (another CPU's record, written
		// after it) is of an earlier stretch.
		if s, ok := in.sleeps[q]; ok && r.Time > s.Time {
			delete(in.sleeps, q)
			if e, ok := sleepEnd(s, r); ok {
				emit(Event{CPU: s.CPU, TID: s.TID, Start: s.Time, End: e, Group: s.Group, Since: since(s), Empty: true})
			} else {
				in.Losses.SleepsUnended++
			}
		}
		in.lastRun[q] = max(in.lastRun[q], r.Time)
		for _, h := range in.open {
			if h.Group == r.Group && h.CPU == r.CPU && h.Time < r.Time && h.runEnd == 0 {
				h.runEnd = r.Time
			}
		}
	case RecordThrottle, RecordUnthrottle:
		in.bandwidth(r, emit)
	case RecordBack:
		h, ok := in.open[r.TID]
		if !ok {
			in.Losses.Orphans++
			return
		}
		delete(in.open, r.TID)
		if h.parts != nil {
			h.finish(r.Time, emit)
			return
		}
		if len(h.stretches) > 0 {
			h.split(r, emit)
			return
		}
		emit(Event{CPU: h.CPU, TID: h.TID, Start: h.Time, End: end(h, r), Group: h.Group, Since: since(h.Record)})
	}
}

// bandwidth takes a Throttle or Unthrottle r: an Unthrottle of a queue
// ends the part of each hold on it (and a Sleep's stretch), and where an
// ancestor's throttle still holds the queue's threads a part under that
// one begins; a Throttle of its thread's queue, or of one above it,
// begins a new part for a hold whose thread still waits, unthrottled.
func (in *Interpreter) bandwidth(r Record, emit func(Event)) {
	if r.Kind == RecordThrottle {
		if h, ok := in.open[r.TID]; ok && len(h.parts) > 0 && !h.holding(r.Group) {
			h.parts = append(h.parts, part{group: r.Group, start: max(r.Time, h.Time)})
		}
		return
	}
	for _, h := range in.open {
		if h.CPU != r.CPU || len(h.parts) == 0 {
			continue
		}
		ended := false
		for i := range h.parts {
			if p := &h.parts[i]; p.end == 0 && p.group == r.Group && p.start <= r.Time {
				p.end, ended = r.Time, true
			}
		}
		if ended && r.Next != 0 && !h.holding(r.Next) {
			h.parts = append(h.parts, part{group: r.Next, start: r.Time})
		}
	}
	q := queueKey{r.Group, r.CPU}
	if s, ok := in.sleeps[q]; ok && r.Time > s.Time {
		delete(in.sleeps, q)
		emit(Event{CPU: s.CPU, TID: s.TID, Start: s.Time, End: r.Time, Group: s.Group, Since: since(s), Empty: true})
	}
}

// holding is whether h has an open part under group.
func (h *openHold) holding(group uint64) bool {
	for _, p := range h.parts {
		if p.end == 0 && p.group == group {
			return true
		}
	}
	return false
}

// finish ends hold h at end, its thread's Back (or the stream's end): an
// interval for each part, none past end; a part begun at or after end is
// dropped, and the first is handed on even where it is empty, as an
// unsplit hold's is.
func (h *openHold) finish(end int64, emit func(Event)) {
	for i, p := range h.parts {
		e := end
		if p.end != 0 && p.end < e {
			e = p.end
		}
		if e <= p.start {
			if i > 0 {
				continue
			}
			e = p.start
		}
		ev := Event{CPU: h.CPU, TID: h.TID, Start: p.start, End: e, Group: p.group}
		if i == 0 {
			ev.Since = since(h.Record)
		}
		emit(ev)
	}
}

// observe takes what record r says of h's queue: the stretch h saw last
// ended when the sum of the queue's stretches grew past the sum at its
// start (it grows by a stretch's length at its unthrottle), and a stretch
// begun at another start is a new one, through which h, still not run,
// was held again.
func (h *openHold) observe(r Record) {
	last := &h.stretches[len(h.stretches)-1]
	if last.end == 0 && r.SelfTime > last.sum {
		if unthrottled := last.start + (r.SelfTime - last.sum); unthrottled <= r.Clock {
			last.end = r.Time - int64(r.Clock-unthrottled)
		} else {
			last.end = r.Time
		}
	}
	if last.end != 0 && r.SelfClock != 0 && r.SelfClock != last.start {
		h.stretches = append(h.stretches, stretch{start: r.SelfClock, sum: r.SelfTime, t: r.Time, c: r.Clock})
	}
}

// split ends hold h at its thread's Back b: an interval for each
// stretch it was held through, each from the stretch's start (the hold's
// own, for the first) to its unthrottle, none past b. A stretch whose end
// no record told ends at b; the first is handed on even where it is empty.
func (h *openHold) split(b Record, emit func(Event)) {
	if b.Clock != 0 {
		h.observe(b)
	}
	for i, s := range h.stretches {
		start := h.Time
		if i > 0 {
			start = max(h.Time, s.t-int64(s.c-s.start))
		}
		end := b.Time
		if s.end != 0 && s.end < end {
			end = s.end
		}
		if end <= start {
			if i > 0 {
				continue
			}
			// The hold's own part is handed on, if empty, as an
			// unsplit hold is (end): an unthrottle stamped before the
			// switch-out that recorded the hold (another CPU's).
			end = start
		}
		e := Event{CPU: h.CPU, TID: h.TID, Start: start, End: end, Group: h.Group}
		if i == 0 {
			e.Since = since(h.Record)
		}
		emit(e)
	}
}

// end is where the interval of hold h, whose thread came back at b, ended:
// at b, or earlier, at the first Run of its queue since its start (the
// group ran there again: a thread still waiting waits for the CPU, not
// for the quota), or at the unthrottle itself, read from the queue's own
// throttled clock: the stretch begun at SelfClock ended when SelfTime grew
// by its length, on the clock that ran from h.Clock at h's start (taken to
// run at CLOCK_MONOTONIC's rate: exact for rq_clock; before 6.6 the Run
// bound also applies, where PELT's clock may be scaled).
func end(h *openHold, b Record) int64 {
	e := b.Time
	if h.runEnd > h.Time && h.runEnd < e {
		e = h.runEnd
	}
	if h.SelfClock != 0 && h.Clock != 0 && b.Group == h.Group && b.SelfTime > h.SelfTime {
		unthrottled := h.SelfClock + (b.SelfTime - h.SelfTime)
		if unthrottled > h.Clock {
			if u := h.Time + int64(unthrottled-h.Clock); u < e {
				e = u
			}
		}
	}
	return max(e, h.Time)
}

// sleepEnd is where the stretch a Sleep s began ended, read from its
// queue's throttled clock at the group's next Run r: the stretch begun at
// s.SelfClock ended when SelfTime grew by its length, no later than r;
// false where the clocks do not say.
func sleepEnd(s, r Record) (int64, bool) {
	if s.SelfClock == 0 || s.Clock == 0 || r.SelfTime <= s.SelfTime {
		return 0, false
	}
	unthrottled := s.SelfClock + (r.SelfTime - s.SelfTime)
	if unthrottled <= s.Clock {
		return 0, false
	}
	return min(s.Time+int64(unthrottled-s.Clock), r.Time), true
}

// since is where the throttled stretch that holds a thread woken onto its
// queue (Wake), or that a Sleep left, began, on CLOCK_MONOTONIC: the
// queue's SelfClock, which ran r.Clock-r.SelfClock before the record on
// the same clock; 0 where unknown. A Hold is the throttle's own
// switch-out, so its stretch begins there.
func since(r Record) int64 {
	if (r.Kind != RecordWake && r.Kind != RecordSleep) || r.SelfClock == 0 || r.Clock <= r.SelfClock {
		return 0
	}
	if d := r.Clock - r.SelfClock; d < uint64(r.Time) {
		return r.Time - int64(d)
	}
	return 0
}

// Close ends the stream at now: the holds whose thread is still held
// (stillHeld, from the kernel's own list at the end) are handed on as
// ending now; the others lost their Back.
func (in *Interpreter) Close(now int64, stillHeld func(tid int32) bool, emit func(Event)) {
	// In the order of their starts, the same every time.
	holds := slices.SortedFunc(maps.Values(in.open), func(a, b *openHold) int {
		return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.TID, b.TID))
	})
	clear(in.open)
	in.Losses.SleepsUnended += uint64(len(in.sleeps))
	clear(in.sleeps)
	for _, h := range holds {
		tid := h.TID
		if !stillHeld(tid) {
			in.Losses.EndLost++
			continue
		}
		in.Losses.OpenAtEnd++
		if h.parts != nil {
			h.finish(now, emit)
			continue
		}
		if now > h.Time {
			emit(Event{CPU: h.CPU, TID: h.TID, Start: h.Time, End: now, Group: h.Group, Since: since(h.Record)})
		}
	}
}

// Open is the number of holds with no Back yet.
func (in *Interpreter) Open() int { return len(in.open) }

// Intervals is the intervals of a whole stream of records that ended at
// now with the threads stillHeld still held, and what could not be known,
// by a zero Interpreter.
func Intervals(records []Record, now int64, stillHeld func(tid int32) bool) ([]Event, RecordLosses) {
	var in Interpreter
	return in.All(records, now, stillHeld)
}

// All is Intervals by in, which must not have been used.
func (in *Interpreter) All(records []Record, now int64, stillHeld func(tid int32) bool) ([]Event, RecordLosses) {
	var out []Event
	emit := func(e Event) { out = append(out, e) }
	for _, r := range records {
		in.Add(r, emit)
	}
	in.Close(now, stillHeld, emit)
	return out, in.Losses
}
