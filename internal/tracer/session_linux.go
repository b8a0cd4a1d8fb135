//go:build linux

package tracer

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// readEvery is how often the reader looks at the ring buffer when the
// program has not woken it.
const readEvery = 100 * time.Millisecond

// Tracer is one attached throttle tracer. Stop it on every exit path.
type Tracer struct {
	attach string
	objs   *objects
	prog   *ebpf.Program // the one on sched_switch
	links  []link.Link
	hooks  hooks // throttle_cfs_rq's and unthrottle_cfs_rq's, where attached
	// hooksWhy is why no kind of hooks attached (each kind's error).
	hooksWhy error
	nread    atomic.Uint64 // records read, the threads' states apart (as submitted)
	rd       *ringbuf.Reader
	done     chan struct{} // closed when the reading goroutine has returned

	// interp turns records into intervals: the reading goroutine's
	// until done, then Stop's.
	interp  throttle.Interpreter
	onEvent func(throttle.Event)
	// onRecord, when set (tests), sees each record before interp.
	onRecord func(throttle.Record)
	// ids maps the kernel's thread ids to this process's PID namespace's,
	// from the states' records, where that namespace is not the root one
	// (inNamespace); nil in the root one. The reading goroutine's, then
	// Stop's.
	ids map[int32]int32

	mu     sync.Mutex // guards tracked
	groups map[uint64]bool

	syncMu   sync.Mutex    // one Sync at a time
	synced   chan struct{} // the reader's answer to a Sync's flush
	stopping atomic.Bool   // Stop's flush ends the reader; a Sync's does not

	once      sync.Once
	stoppedAt int64   // CLOCK_MONOTONIC at Stop, where open holds end
	stillHeld []int32 // the threads the kernel held at Stop
	losses    Losses
	lost      uint64
	err       error
}

// attaches counts the tracers this process attached (Attaches).
var attaches atomic.Uint64

// Attaches is how many tracers this process has attached so far: each one
// live-patches the scheduler's tracepoints, so a run that changes the
// groups it traces (Track, Untrack) attaches once.
func Attaches() uint64 { return attaches.Load() }

// CgroupID is the kernfs id of the cgroup at dir: its directory's inode
// number, what Track takes.
func CgroupID(dir string) (uint64, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, fmt.Errorf("trace throttle events: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok {
		return 0, fmt.Errorf("trace throttle events: %s is not a cgroup directory", dir)
	}
	return st.Ino, nil
}

// New loads and attaches the tracer with no group traced yet: Track adds
// them, while it is attached. onEvent is called for each held interval as
// it ends, from a goroutine of the tracer's own, and, from Stop, for each
// still open then, as ending at Stop. onState, where not nil, is called
// from the same goroutine for each change of a traced thread's state
// (switched in, out, woken: throttle.State), the timelines a breakdown is
// cut from; nil asks the kernel for none. Neither may call Stop.
func New(onEvent func(throttle.Event), onState func(throttle.State)) (*Tracer, error) {
	return attachNew(onEvent, onState, attachOrder, nil)
}

// attachNew is New on the attach points given; onRecord, when set, sees
// each record first (tests record streams with it).
func attachNew(onEvent func(throttle.Event), onState func(throttle.State), attachPoints []string, onRecord func(throttle.Record)) (*Tracer, error) {
	objs, attach, err := load(attachPoints)
	if err != nil {
		return nil, err
	}
	t := &Tracer{attach: attach, objs: objs, prog: objs.progs[0], done: make(chan struct{}), synced: make(chan struct{}),
		onEvent: onEvent, onRecord: onRecord, groups: map[uint64]bool{}}
	t.interp.OnState = onState
	if onState != nil && pidNamespace() != 0 {
		t.inNamespace(onEvent, onState)
	}
	fail := func(err error) (*Tracer, error) {
		for _, l := range t.links {
			l.Close()
		}
		t.hooks.close()
		objs.Close()
		return nil, err
	}
	// The hooks first, and told to write, so that the tracepoints'
	// programs, attached after, find them there from their first record.
	// Where the kernel takes neither kind, the queues' clocks or the
	// group's next run end the holds, as before the hooks.
	if h, err := attachHooks(objs.spec, objs.maps); err != nil {
		t.hooksWhy = err
		t.interp.SelfClock = splitsHolds()
	} else {
		t.hooks = h
		if err := objs.Hooked.Set(true); err != nil {
			return fail(fmt.Errorf("trace throttle events: %w", err))
		}
		t.interp.Hooked = true
		t.interp.EmptyStretches = CountsEmptyStretches()
	}
	if onState != nil {
		if err := objs.States.Set(true); err != nil {
			return fail(fmt.Errorf("trace throttle events: %w", err))
		}
	}
	t.links, err = attachAll(attach, objs.progs[:])
	if err != nil {
		return fail(err)
	}
	attaches.Add(1)
	t.rd, err = ringbuf.NewReader(objs.Events)
	if err != nil {
		return fail(fmt.Errorf("trace throttle events: read the ring buffer: %w", err))
	}
	go t.read()
	return t, nil
}

// Track adds the cgroup with kernfs id (CgroupID) and its descendants to
// what is traced, from now on. The map holds 16384 groups: Untrack those
// done with (a run's slices as it removes them).
func (t *Tracer) Track(id uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.objs.Groups.Put(id, uint8(1)); err != nil {
		return fmt.Errorf("trace throttle events: track cgroup %d: %w", id, err)
	}
	t.groups[id] = true
	return t.newGeneration()
}

// newGeneration tells the program that the traced groups changed: each
// thread's group is looked up again (the leaves map), after the change.
func (t *Tracer) newGeneration() error {
	var g uint64
	if err := t.objs.Generation.Get(&g); err != nil {
		return fmt.Errorf("trace throttle events: %w", err)
	}
	if err := t.objs.Generation.Set(g + 1); err != nil {
		return fmt.Errorf("trace throttle events: %w", err)
	}
	return nil
}

// Untrack takes the cgroup with kernfs id off what is traced: no new hold
// of its threads is recorded. Threads held now are still followed to
// their end (an interval is not cut short by it).
func (t *Tracer) Untrack(id uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.groups[id] {
		return nil
	}
	delete(t.groups, id)
	err := t.objs.Groups.Delete(id)
	if errors.Is(err, ebpf.ErrKeyNotExist) {
		err = nil
	}
	err = errors.Join(err, t.newGeneration())
	// The queues of the group waiting for its next run (before 6.6,
	// unhooked): it may never run again; and those whose throttles the
	// hooks write. Each SLEEP's deleted here leaves its CPU's count, as
	// the program's deletes do.
	for _, m := range []*ebpf.Map{t.objs.Queues, t.objs.Sleeps, t.objs.Throttlers} {
		var q throttleQueue
		var value []byte
		var stale []throttleQueue
		for it := m.Iterate(); it.Next(&q, &value); {
			if q.Group == id {
				stale = append(stale, q)
			}
		}
		for _, q := range stale {
			if m.Delete(q) != nil || m != t.objs.Sleeps {
				continue // its RUN came meanwhile, or a hold's: counted by held
			}
			var n int64
			if t.objs.SleptOn.Lookup(q.Cpu, &n) == nil {
				_ = t.objs.SleptOn.Update(q.Cpu, n-1, ebpf.UpdateExist)
			}
			if t.objs.Nslept.Get(&n) == nil {
				_ = t.objs.Nslept.Set(n - 1)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("trace throttle events: untrack cgroup %d: %w", id, err)
	}
	return nil
}

// read hands each record to the interpreter until Stop flushes or closes
// the reader.
func (t *Tracer) read() {
	defer close(t.done)
	var rec ringbuf.Record
	for {
		// The program wakes the reader only when the buffer fills up
		// (BPF_RB_NO_WAKEUP): it reads on a deadline instead.
		t.rd.SetDeadline(time.Now().Add(readEvery))
		err := t.rd.ReadInto(&rec)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			continue
		}
		if errors.Is(err, ringbuf.ErrFlushed) && !t.stopping.Load() {
			t.synced <- struct{}{} // a Sync's flush: every record before it is read
			continue
		}
		if err != nil {
			// ErrFlushed (Stop drained what was left) or ErrClosed:
			// nothing more will come.
			return
		}
		// A record of another size would mean a stale object; the
		// staleness test guards against it, so it is dropped here.
		r, err := decode(rec.RawSample)
		if err != nil {
			t.nread.Add(1)
			continue
		}
		// As the program counts submitted: the threads' states apart.
		if !r.Kind.State() {
			t.nread.Add(1)
		}
		if t.onRecord != nil {
			t.onRecord(r)
		}
		if t.ids != nil && r.Kind.State() && r.Clock != 0 {
			t.ids[r.TID] = int32(r.Clock)
		}
		t.interp.Add(r, t.onEvent)
	}
}

// Sync returns once every record the kernel wrote before it was called
// has been handed to the interpreter (and so its ended intervals to
// onEvent): a window that closes reads what it saw without waiting for
// the reader's next look, and without detaching. Holds still open are
// not ended by it. Not to be called from onEvent.
func (t *Tracer) Sync() error {
	t.syncMu.Lock()
	defer t.syncMu.Unlock()
	if t.stopping.Load() {
		return nil
	}
	if err := t.rd.Flush(); err != nil {
		return fmt.Errorf("trace throttle events: read the ring buffer: %w", err)
	}
	select {
	case <-t.synced:
	case <-t.done:
	}
	return nil
}

// LostSoFar is the records and holds the kernel side could not keep so
// far (a full ring buffer or map): Losses' kernel counters while the
// tracer is attached, so that a window can count its own by difference.
func (t *Tracer) LostSoFar() uint64 {
	v := t.objs.throttleVariables
	var sum uint64
	for _, g := range []*ebpf.Variable{v.Lost, v.LostRun, v.LostBack, v.LostHeld, v.LostQueues} {
		var n uint64
		if g.Get(&n) == nil {
			sum += n
		}
	}
	return sum
}

// StatesLostSoFar is the state records (throttle.State) a full ring
// buffer refused so far: a thread's timeline with a gap.
func (t *Tracer) StatesLostSoFar() uint64 {
	var n uint64
	_ = t.objs.LostStates.Get(&n)
	return n
}

// Attach names the attach point in use: AttachBTF or AttachRaw.
func (t *Tracer) Attach() string { return t.attach }

// Hooks names the kind of throttle hooks attached (HooksFentry,
// HooksKprobe), HooksNone where the kernel took neither: then a hold ends
// where its queue's clocks or its group's next run say.
func (t *Tracer) Hooks() string { return t.hooks.kind }

// HoldEnds is where this tracer ends a hold: at the hooked unthrottle
// (throttle.EndsUnthrottle), else from the queue's own throttled clock
// where the kernel keeps one (EndsQueueClock, 6.6+), else no later than
// the group's next run (EndsUpperBound).
func (t *Tracer) HoldEnds() string {
	switch {
	case t.hooks.kind != HooksNone:
		return throttle.EndsUnthrottle
	case ExactEnds() && !CountsEmptyStretches():
		return throttle.EndsQueueClock
	}
	return throttle.EndsUpperBound
}

// Losses are the held intervals a trace could not pass on, by cause; Stop
// returns their sum.
type Losses struct {
	HoldsLost uint64 // holds (HOLD, WAKE) and sleeps a full ring buffer refused
	RunsLost  uint64 // RUN records it refused (an end may be late)
	EndLost   uint64 // holds whose end was lost (a BACK it refused)
	HeldMap   uint64 // holds the held map refused (full, or -EBUSY)
	QueueMap  uint64 // holds and sleeps the queues or sleeps map refused (an end may be late, a sleep untraced)
	InFlight  uint64 // records sent but not read at Stop
	// RingFull is every record a full ring buffer refused (HoldsLost,
	// RunsLost and the BACKs behind EndLost): not added again in Sum.
	RingFull uint64
	// OpenAtStop is not a loss: the intervals still held at Stop,
	// handed on as ending then (Stop).
	OpenAtStop uint64
	// SleepsUnended, before 6.6: stretches a thread left throttled as it
	// went to sleep whose end no RUN told (their group did not run on
	// that CPU again while traced): the counter has them, the trace not.
	SleepsUnended uint64
}

// Sum is every interval lost or possibly ended late.
func (l Losses) Sum() uint64 {
	return l.HoldsLost + l.RunsLost + l.EndLost + l.HeldMap + l.QueueMap + l.InFlight
}

// Losses is what Stop counted; zero before Stop.
func (t *Tracer) Losses() Losses { return t.losses }

// Stop detaches the programs first, so no new records come, hands what is
// left in the ring buffer on, then the intervals still open, as ending
// now (lest a window that ends in a long hold miss its throttled time),
// and closes the reader, programs and maps. lost counts the held intervals
// not passed on, or whose end may be late (Losses has them by cause). It
// is safe to call twice; the second call returns the first's results.
func (t *Tracer) Stop() (lost uint64, err error) {
	t.once.Do(func() {
		t.stopping.Store(true)
		var errs []error
		for _, l := range t.links {
			errs = append(errs, l.Close())
		}
		errs = append(errs, t.hooks.close())
		// Flush wakes the reader, which returns what was pending, then
		// ErrFlushed. A program run already under way on another CPU
		// when the link closed may still submit after this: counted
		// below, from submitted against what was read.
		if err := t.rd.Flush(); err != nil {
			errs = append(errs, err)
		}
		<-t.done
		errs = append(errs, t.rd.Close())
		v := t.objs.throttleVariables
		var submitted, lostBack uint64
		for _, g := range []struct {
			v *ebpf.Variable
			n *uint64
		}{
			{v.Lost, &t.losses.HoldsLost}, {v.LostRun, &t.losses.RunsLost}, {v.LostBack, &lostBack},
			{v.LostHeld, &t.losses.HeldMap}, {v.LostQueues, &t.losses.QueueMap}, {v.Submitted, &submitted},
		} {
			errs = append(errs, g.v.Get(g.n))
		}
		t.losses.RingFull = t.losses.HoldsLost + t.losses.RunsLost + lostBack
		if n := t.nread.Load(); submitted > n {
			t.losses.InFlight = submitted - n
		}
		// The kernel's own list of the threads held now: an open hold
		// not in it lost its end.
		still := map[int32]bool{}
		var tid uint32
		var h throttleHold
		for it := t.objs.Held.Iterate(); it.Next(&tid, &h); {
			still[int32(tid)] = true
			t.stillHeld = append(t.stillHeld, int32(tid))
		}
		t.stoppedAt = monotonicNow()
		t.interp.Close(t.stoppedAt, func(tid int32) bool { return still[tid] }, t.onEvent)
		t.losses.EndLost = t.interp.Losses.EndLost
		t.losses.OpenAtStop = t.interp.Losses.OpenAtEnd
		t.losses.SleepsUnended = t.interp.Losses.SleepsUnended
		t.lost = t.losses.Sum()
		errs = append(errs, t.objs.Close())
		if err := errors.Join(errs...); err != nil {
			t.err = fmt.Errorf("stop throttle tracer: %w", err)
		}
	})
	return t.lost, t.err
}

// monotonicNow is CLOCK_MONOTONIC in ns, the clock of the events' stamps
// (bpf_ktime_get_ns).
func monotonicNow() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// inNamespace has the events and states handed on name each thread by its
// id in this process's PID namespace, the one a worker reads for itself
// (gettid) and stamps its requests with, where the states' records gave
// it (a thread of another namespace keeps the kernel's). The records, and
// the interpreter that pairs them, keep the kernel's ids.
func (t *Tracer) inNamespace(onEvent func(throttle.Event), onState func(throttle.State)) {
	t.ids = map[int32]int32{}
	id := func(tid int32) int32 {
		if ns, ok := t.ids[tid]; ok {
			return ns
		}
		return tid
	}
	if onEvent != nil {
		t.onEvent = func(e throttle.Event) {
			e.TID = id(e.TID)
			onEvent(e)
		}
	}
	t.interp.OnState = func(s throttle.State) {
		s.TID = id(s.TID)
		onState(s)
	}
}
