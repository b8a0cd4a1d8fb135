//go:build linux

package tracer

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// The attach points, in the order tried: the BTF-typed tracepoint first,
// the raw one for kernels that refuse tp_btf. Same C body behind both.
const (
	AttachBTF = "tp_btf/sched_switch"
	AttachRaw = "raw_tp/sched_switch"
)

var attachOrder = []string{AttachBTF, AttachRaw}

// tracepoints are the scheduler's tracepoints the programs attach to, in
// the order of objects.progs.
var tracepoints = []string{"sched_switch", "sched_wakeup", "sched_wakeup_new"}

// objects are what one tracer loads: the programs of its attach point
// (tracepoints' order), the maps and the variables, as bpf2go typed them.
type objects struct {
	progs [3]*ebpf.Program
	throttleMaps
	throttleVariables
}

// btfObjects and rawObjects are the objects of each attach point, for
// LoadAndAssign, which loads only what they name.
type btfObjects struct {
	Switch    *ebpf.Program `ebpf:"sched_switch_btf"`
	Wakeup    *ebpf.Program `ebpf:"sched_wakeup_btf"`
	WakeupNew *ebpf.Program `ebpf:"sched_wakeup_new_btf"`
	throttleMaps
	throttleVariables
}

type rawObjects struct {
	Switch    *ebpf.Program `ebpf:"sched_switch_raw"`
	Wakeup    *ebpf.Program `ebpf:"sched_wakeup_raw"`
	WakeupNew *ebpf.Program `ebpf:"sched_wakeup_new_raw"`
	throttleMaps
	throttleVariables
}

func (o *objects) Close() error {
	errs := []error{o.throttleMaps.Close()}
	for _, p := range o.progs {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// readEvery is how often the reader looks at the ring buffer when the
// program has not woken it.
const readEvery = 100 * time.Millisecond

// btfPath is where the kernel publishes its own BTF; CO-RE needs it.
const btfPath = "/sys/kernel/btf/vmlinux"

// Tracer is one attached throttle tracer. Stop it on every exit path.
type Tracer struct {
	attach string
	objs   *objects
	prog   *ebpf.Program // the one on sched_switch
	links  []link.Link
	nread  atomic.Uint64 // records read
	rd     *ringbuf.Reader
	done   chan struct{} // closed when the reading goroutine has returned

	// interp turns records into intervals: the reading goroutine's
	// until done, then Stop's.
	interp  throttle.Interpreter
	onEvent func(throttle.Event)
	// onRecord, when set (tests), sees each record before interp.
	onRecord func(throttle.Record)

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

// Probe says whether throttle events can be traced here and, if so, how
// their intervals start and end on this kernel (ends), or why not: it
// checks what Start needs that a load alone does not show (the
// sched_switch tracepoint's prev_state argument, 5.18+: before it, raw_tp
// loads and its attach fails), loads the programs (tp_btf, then raw_tp)
// without attaching them, and closes them at once.
func Probe() (ends string, err error) {
	objs, _, err := load(attachOrder)
	if err != nil {
		return "", err
	}
	objs.Close()
	kernel, err := btf.LoadKernelSpec()
	if err != nil {
		return "", fmt.Errorf("tracing throttle events needs the kernel's BTF: %w", err)
	}
	switch endClock(kernel) {
	case "self":
		start := ""
		if hasMember(kernel, "task_struct", "throttled") {
			start = "a thread is held from when it meets the throttle on its way back to user space " +
				"(this kernel throttles threads one by one, task_struct.throttled, 6.18+), and "
		}
		return start + "a held interval ends at the unthrottle (this kernel keeps each run queue's throttled clock, " +
			"cfs_rq.throttled_clock_self, 6.8+), even where a busy CPU runs others first", nil
	case "pelt", "task":
		return "a held interval ends at the unthrottle, read from the clock the run queue keeps for load tracking " +
			"(cfs_rq.throttled_clock_" + endClock(kernel) + ", before 6.8), and no later than when its group next runs " +
			"on that CPU: exact where that clock runs at the CPU's own rate (VMs, CPUs the kernel does not scale by " +
			"frequency); where the kernel scales it, the trace can part from the counter, and the run warns where the " +
			"two part by more than 10%", nil
	}
	return "a held interval ends when its throttled group next runs on that CPU: on a busy machine that is after the " +
		"unthrottle, and the trace comes out above the counter (this kernel keeps no throttled clock per run queue); " +
		"the run warns where the two part by more than 10%", nil
}

// endClock is the run queue's throttled clock an interval's end is read
// from on this kernel: "self" (cfs_rq.throttled_clock_self, on rq_clock,
// 6.8+: exact), "pelt" (throttled_clock_pelt, on rq_clock_pelt, 5.19+),
// "task" (throttled_clock_task, on rq_clock_task, before), or "" (none
// known: ends come from the group's next run alone). The pelt and task
// clocks run at rq_clock's rate where the kernel neither scales PELT by
// frequency nor leaves out IRQ or steal time (the VM: TCG, neither
// configured), and they count the stretch of the queue's whole hierarchy.
func endClock(kernel *btf.Spec) string {
	for _, c := range []string{"self", "pelt", "task"} {
		if hasMember(kernel, "cfs_rq", "throttled_clock_"+c+"_time") {
			return c
		}
	}
	return ""
}

// ExactEnds is whether a held interval ends at the unthrottle itself on
// this kernel, read from its run queue's throttled clock (endClock),
// rather than when the group next runs on that CPU; false where the
// kernel's BTF cannot be read. Tests choose their agreement bounds by it:
// before 6.8 they run where that clock is unscaled (the VM).
func ExactEnds() bool {
	kernel, err := btf.LoadKernelSpec()
	return err == nil && endClock(kernel) != ""
}

// CountsEmptyStretches is whether this kernel's throttled counters
// (cpu.stat's throttled_time, throttled_usec) also count the stretches in
// which no thread of the group was runnable: a thread that used up the
// quota and went to sleep leaves its queue throttled, counted to the
// unthrottle, while no thread waits. The kernel stopped counting them
// ("sched: don't account throttle time for empty groups") in the series
// that added cfs_rq's throttled_clock_self (6.8+), so that is the mark;
// true where the kernel's BTF cannot be read. Where true the program
// traces them (SLEEP) to the group's next run on that CPU (Event.Empty),
// and one whose group never runs there again is missing from the trace.
func CountsEmptyStretches() bool {
	kernel, err := btf.LoadKernelSpec()
	return err != nil || !hasMember(kernel, "cfs_rq", "throttled_clock_self_time")
}

// ExactStarts is whether a hold starts when the thread itself meets the
// throttle on this kernel (it throttles threads one by one, 6.18+), rather
// than when it is switched out or woken while its queue is marked
// throttled; false where the kernel's BTF cannot be read. With ExactEnds
// the trace matches the counter also on a busy machine; tests choose
// their agreement bounds by it.
func ExactStarts() bool {
	kernel, err := btf.LoadKernelSpec()
	return err == nil && hasMember(kernel, "task_struct", "throttled")
}

// hasMember is whether the kernel's struct has the member: what load sets
// the program's read-only task_based and self_clock by (cfs_rq's
// throttled_clock_self_time, 6.8+: intervals end at the unthrottle;
// task_struct's throttled, 6.18+: they start when the thread itself is
// throttled).
func hasMember(kernel *btf.Spec, structName, member string) bool {
	var st *btf.Struct
	if kernel.TypeByName(structName, &st) != nil {
		return false
	}
	for _, m := range st.Members {
		if m.Name == member {
			return true
		}
	}
	return false
}

// Start traces the cgroup at cgroupDir (a directory of the cpu controller's
// hierarchy, v1 or v2; its descendants are traced too): New, then Track of
// its id. onEvent is called for each held interval as it ends, from a
// goroutine of the tracer's own, and, from Stop, for each still open
// then, as ending at Stop. onEvent must not call Stop.
func Start(cgroupDir string, onEvent func(throttle.Event)) (*Tracer, error) {
	return start(cgroupDir, onEvent, attachOrder)
}

// start is Start trying only the attach points given, in order (tests
// force the raw_tp fallback with it).
func start(cgroupDir string, onEvent func(throttle.Event), attaches []string) (*Tracer, error) {
	id, err := CgroupID(cgroupDir)
	if err != nil {
		return nil, err
	}
	t, err := attachNew(onEvent, attaches, nil)
	if err != nil {
		return nil, err
	}
	if err := t.Track(id); err != nil {
		t.Stop()
		return nil, err
	}
	return t, nil
}

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
// them, while it is attached. onEvent is as Start's.
func New(onEvent func(throttle.Event)) (*Tracer, error) {
	return attachNew(onEvent, attachOrder, nil)
}

// attachNew is New on the attach points given; onRecord, when set, sees
// each record first (tests record streams with it).
func attachNew(onEvent func(throttle.Event), attachPoints []string, onRecord func(throttle.Record)) (*Tracer, error) {
	objs, attach, err := load(attachPoints)
	if err != nil {
		return nil, err
	}
	t := &Tracer{attach: attach, objs: objs, prog: objs.progs[0], done: make(chan struct{}), synced: make(chan struct{}),
		onEvent: onEvent, onRecord: onRecord, groups: map[uint64]bool{}}
	fail := func(err error) (*Tracer, error) {
		for _, l := range t.links {
			l.Close()
		}
		objs.Close()
		return nil, err
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
	// The queues of the group waiting for its next run (before 6.8): it
	// may never run again. Each SLEEP's deleted here leaves its CPU's
	// count, as the program's deletes do.
	for _, m := range []*ebpf.Map{t.objs.Queues, t.objs.Sleeps} {
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
		t.nread.Add(1)
		// A record of another size would mean a stale object; the
		// staleness test guards against it, so it is dropped here.
		r, err := decode(rec.RawSample)
		if err != nil {
			continue
		}
		if t.onRecord != nil {
			t.onRecord(r)
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

// Attach names the attach point in use: AttachBTF or AttachRaw.
func (t *Tracer) Attach() string { return t.attach }

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
	// SleepsUnended, before 6.8: stretches a thread left throttled as it
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

// attachAll attaches the programs (tracepoints' order) to their
// tracepoints, typed or raw as attach says; on error it closes what it
// attached.
func attachAll(attach string, progs []*ebpf.Program) ([]link.Link, error) {
	var links []link.Link
	for i, p := range progs {
		var l link.Link
		var err error
		if attach == AttachBTF {
			l, err = link.AttachTracing(link.TracingOptions{Program: p, AttachType: ebpf.AttachTraceRawTp})
		} else {
			l, err = link.AttachRawTracepoint(link.RawTracepointOptions{Name: tracepoints[i], Program: p})
		}
		if err != nil {
			for _, l := range links {
				l.Close()
			}
			return nil, fmt.Errorf("trace throttle events: attach %s to %s: %w", attach, tracepoints[i], err)
		}
		links = append(links, l)
	}
	return links, nil
}

// load loads the programs, tracing no group yet, for the first of the
// attach points the kernel accepts. It returns them with
// their maps and variables, and the attach point; errors are worded for
// the user.
func load(attaches []string) (*objects, string, error) {
	if _, err := os.Stat(btfPath); err != nil {
		return nil, "", fmt.Errorf("tracing throttle events needs the kernel's BTF (CONFIG_DEBUG_INFO_BTF), and %s is missing: %w", btfPath, err)
	}
	kernel, err := btf.LoadKernelSpec()
	if err != nil {
		return nil, "", fmt.Errorf("tracing throttle events needs the kernel's BTF: read %s: %w", btfPath, err)
	}
	if err := switchHasPrevState(kernel); err != nil {
		return nil, "", err
	}
	// Kernels before 5.11 charge BPF maps to RLIMIT_MEMLOCK; later
	// ones to the cgroup, and then this does nothing.
	if err := rlimit.RemoveMemlock(); err != nil {
		return nil, "", explain(err)
	}
	var first error
	var rest []string
	for _, a := range attaches {
		objs, err := loadOne(kernel, a)
		if err == nil {
			return objs, a, nil
		}
		if isPerm(err) {
			// Every attach point needs the same privileges: no next try.
			return nil, "", explain(err)
		}
		if first == nil {
			first = explain(err)
		} else {
			rest = append(rest, fmt.Sprintf("; %s: %v", a, err))
		}
	}
	// The first attach point's error, for the user; then the others'.
	return nil, "", fmt.Errorf("%w%s (tried %s)", first, strings.Join(rest, ""), strings.Join(attaches, ", "))
}

// switchHasPrevState says whether the kernel's sched_switch tracepoint
// passes prev_state (5.18+: preempt, prev, next, prev_state), which the
// program reads; before, the raw_tp program loads and its attach is
// refused, so the tracer says it cannot trace here rather than fail then.
// The tracepoint's prototype is the kernel's btf_trace_sched_switch: a
// pointer to a function of (void *ctx, the tracepoint's arguments...).
func switchHasPrevState(kernel *btf.Spec) error {
	var td *btf.Typedef
	if err := kernel.TypeByName("btf_trace_sched_switch", &td); err != nil {
		return fmt.Errorf("tracing throttle events: the kernel's BTF has no sched_switch tracepoint (btf_trace_sched_switch): %w", err)
	}
	ptr, ok := td.Type.(*btf.Pointer)
	var proto *btf.FuncProto
	if ok {
		proto, ok = ptr.Target.(*btf.FuncProto)
	}
	if !ok {
		return fmt.Errorf("tracing throttle events: the kernel's sched_switch tracepoint has an unknown prototype (%v)", td.Type)
	}
	if args := len(proto.Params) - 1; args < 4 {
		return fmt.Errorf("tracing throttle events needs a kernel whose sched_switch tracepoint passes prev_state (5.18 or later): "+
			"this one passes %d arguments, not 4", args)
	}
	return nil
}

// loadOne loads the programs of attach point a (tracepoints' order) and
// the maps they use, with this kernel's rules (kernel: its BTF) set in the
// program's read-only data before the load, so that the verifier drops
// the code of the rules it does not get.
func loadOne(kernel *btf.Spec, a string) (*objects, error) {
	spec, err := loadThrottle()
	if err != nil {
		return nil, err
	}
	var vars throttleVariableSpecs
	if err := spec.Assign(&vars); err != nil {
		return nil, err
	}
	if err := vars.TaskBased.Set(hasMember(kernel, "task_struct", "throttled")); err != nil {
		return nil, err
	}
	clock := endClock(kernel)
	for v, c := range map[*ebpf.VariableSpec]string{vars.SelfClock: "self", vars.PeltClock: "pelt", vars.TaskClock: "task"} {
		if err := v.Set(clock == c); err != nil {
			return nil, err
		}
	}
	switch a {
	case AttachBTF:
		var o btfObjects
		if err := spec.LoadAndAssign(&o, nil); err != nil {
			return nil, err
		}
		return &objects{[3]*ebpf.Program{o.Switch, o.Wakeup, o.WakeupNew}, o.throttleMaps, o.throttleVariables}, nil
	case AttachRaw:
		var o rawObjects
		if err := spec.LoadAndAssign(&o, nil); err != nil {
			return nil, err
		}
		return &objects{[3]*ebpf.Program{o.Switch, o.Wakeup, o.WakeupNew}, o.throttleMaps, o.throttleVariables}, nil
	}
	return nil, fmt.Errorf("unknown attach point %q", a)
}

func isPerm(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES)
}

// explain words a load error for the user: what is missing, then the
// kernel's own words.
func explain(err error) error {
	var verr *ebpf.VerifierError
	switch {
	case isPerm(err):
		return fmt.Errorf("tracing throttle events needs root or CAP_BPF and CAP_PERFMON: loading the BPF program was refused (%w)", err)
	case errors.As(err, &verr):
		return fmt.Errorf("tracing throttle events: the kernel's verifier refused the BPF program: %w", err)
	case errors.Is(err, ebpf.ErrNotSupported):
		return fmt.Errorf("tracing throttle events: this kernel does not support what the BPF program needs: %w", err)
	default:
		return fmt.Errorf("tracing throttle events: loading the BPF program failed: %w", err)
	}
}

// monotonicNow is CLOCK_MONOTONIC in ns, the clock of the events' stamps
// (bpf_ktime_get_ns).
func monotonicNow() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}
