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

// tracepoints are the scheduler's tracepoints the programs attach to: the
// one on sched_switch first, then the one on sched_wakeup.
var tracepoints = []string{"sched_switch", "sched_wakeup"}

// objects are what one tracer loads: the two programs of its attach point
// (tracepoints' order), the maps and the variables, as bpf2go typed them.
type objects struct {
	progs [2]*ebpf.Program
	throttleMaps
	throttleVariables
}

// btfObjects and rawObjects are the objects of each attach point, for
// LoadAndAssign, which loads only what they name.
type btfObjects struct {
	Switch *ebpf.Program `ebpf:"sched_switch_btf"`
	Wakeup *ebpf.Program `ebpf:"sched_wakeup_btf"`
	throttleMaps
	throttleVariables
}

type rawObjects struct {
	Switch *ebpf.Program `ebpf:"sched_switch_raw"`
	Wakeup *ebpf.Program `ebpf:"sched_wakeup_raw"`
	throttleMaps
	throttleVariables
}

func (o *objects) Close() error {
	return errors.Join(o.progs[0].Close(), o.progs[1].Close(), o.throttleMaps.Close())
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
	nread  atomic.Uint64 // records handed on
	rd     *ringbuf.Reader
	done   chan struct{} // closed when the reading goroutine has returned

	onEvent func(throttle.Event)

	once   sync.Once
	losses Losses
	lost   uint64
	err    error
}

// Probe says whether throttle events can be traced here and, if so, how
// their intervals end on this kernel (ends), or why not: it checks what
// Start needs that a load alone does not show (the sched_switch
// tracepoint's prev_state argument, 5.18+: before it, raw_tp loads and its
// attach fails), loads the programs (tp_btf, then raw_tp) without
// attaching them, and closes them at once.
func Probe() (ends string, err error) {
	objs, _, err := load(0, attachOrder)
	if err != nil {
		return "", err
	}
	objs.Close()
	kernel, err := btf.LoadKernelSpec()
	if err != nil {
		return "", fmt.Errorf("tracing throttle events needs the kernel's BTF: %w", err)
	}
	if hasMember(kernel, "cfs_rq", "throttled_clock_self_time") {
		start := ""
		if hasMember(kernel, "task_struct", "throttled") {
			start = "a thread is held from when it meets the throttle on its way back to user space " +
				"(this kernel throttles threads one by one, task_struct.throttled, 6.16+), and "
		}
		return start + "a held interval ends at the unthrottle (this kernel keeps each run queue's throttled clock, " +
			"cfs_rq.throttled_clock_self, 6.8+), even where a busy CPU runs others first", nil
	}
	return "a held interval ends when its throttled group next runs on that CPU: on a busy machine that is after the " +
		"unthrottle, and the trace comes out above the counter (this kernel keeps no throttled clock per run queue, " +
		"cfs_rq.throttled_clock_self, 6.8+); the run warns where the two part by more than 10%", nil
}

// ExactEnds is whether a held interval ends at the unthrottle itself on
// this kernel (it keeps each run queue's throttled clock, 6.8+), rather
// than when the group next runs on that CPU; false where the kernel's BTF
// cannot be read. Tests choose their agreement bounds by it.
func ExactEnds() bool {
	kernel, err := btf.LoadKernelSpec()
	return err == nil && hasMember(kernel, "cfs_rq", "throttled_clock_self_time")
}

// ExactStarts is whether a hold starts when the thread itself meets the
// throttle on this kernel (it throttles threads one by one, 6.16+), rather
// than when it is switched out or woken while its queue is marked
// throttled; false where the kernel's BTF cannot be read. With ExactEnds
// the trace matches the counter also on a busy machine; tests choose
// their agreement bounds by it.
func ExactStarts() bool {
	kernel, err := btf.LoadKernelSpec()
	return err == nil && hasMember(kernel, "task_struct", "throttled")
}

// hasMember is whether the kernel's struct has the member: the fields
// throttle.bpf.c tests with bpf_core_field_exists, seen from here to say
// which rules this kernel gets (cfs_rq's throttled_clock_self_time, 6.8+:
// intervals end at the unthrottle; task_struct's throttled, 6.16+: they
// start when the thread itself is throttled).
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
// hierarchy, v1 or v2; its descendants are traced too): it loads and
// attaches the program and calls onEvent, from a goroutine of its own, for
// each held interval that ends. Intervals still open at Stop are not
// reported as ending at Stop. onEvent must not call Stop.
func Start(cgroupDir string, onEvent func(throttle.Event)) (*Tracer, error) {
	return start(cgroupDir, onEvent, attachOrder)
}

// start is Start trying only the attach points given, in order (tests
// force the raw_tp fallback with it).
func start(cgroupDir string, onEvent func(throttle.Event), attaches []string) (*Tracer, error) {
	fi, err := os.Stat(cgroupDir)
	if err != nil {
		return nil, fmt.Errorf("trace throttle events: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok {
		return nil, fmt.Errorf("trace throttle events: %s is not a cgroup directory", cgroupDir)
	}
	// The kernfs id of a cgroup is its directory's inode number.
	objs, attach, err := load(st.Ino, attaches)
	if err != nil {
		return nil, err
	}
	t := &Tracer{attach: attach, objs: objs, prog: objs.progs[0], done: make(chan struct{}), onEvent: onEvent}
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
	t.rd, err = ringbuf.NewReader(objs.Events)
	if err != nil {
		return fail(fmt.Errorf("trace throttle events: read the ring buffer: %w", err))
	}
	go t.read(onEvent)
	return t, nil
}

// read hands each record to onEvent until Stop flushes or closes the reader.
func (t *Tracer) read(onEvent func(throttle.Event)) {
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
		if err != nil {
			// ErrFlushed (Stop drained what was left) or ErrClosed:
			// nothing more will come.
			return
		}
		t.nread.Add(1)
		// A record of another size would mean a stale object; the
		// staleness test guards against it, so it is dropped here.
		if e, err := decode(rec.RawSample); err == nil {
			onEvent(e)
		}
	}
}

// Attach names the attach point in use: AttachBTF or AttachRaw.
func (t *Tracer) Attach() string { return t.attach }

// Losses are the held intervals a trace could not pass on, by cause; Stop
// returns their sum.
type Losses struct {
	RingFull uint64 // events a full ring buffer refused
	HeldMap  uint64 // holds the held map refused (full, or -EBUSY)
	MarksMap uint64 // marks the marks map refused (their ends may be late)
	Overrun  uint64 // intervals that outlived their queue's last marks
	InFlight uint64 // events sent but not read at Stop
	// OpenAtStop is not a loss: the intervals still held at Stop,
	// handed on as ending then (Stop).
	OpenAtStop uint64
}

// Sum is every interval lost or possibly ended late.
func (l Losses) Sum() uint64 {
	return l.RingFull + l.HeldMap + l.MarksMap + l.Overrun + l.InFlight
}

// Losses is what Stop counted; zero before Stop.
func (t *Tracer) Losses() Losses { return t.losses }

// Stop detaches the program first, so no new events start, then hands what
// is left in the ring buffer to onEvent, and closes the reader, program and
// maps; the intervals still open are handed on as ending at Stop. lost
// counts the held intervals not passed on (Losses has them by cause): the
// ring buffer or a map was full, an event was in flight at Stop, or an
// interval outlived its run queue's marks (its end may be late). It is safe to call twice; the second call returns
// the first's results.
func (t *Tracer) Stop() (lost uint64, err error) {
	t.once.Do(func() {
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
		var submitted uint64
		for _, g := range []struct {
			v *ebpf.Variable
			n *uint64
		}{
			{v.Lost, &t.losses.RingFull}, {v.LostHeld, &t.losses.HeldMap}, {v.LostMarks, &t.losses.MarksMap},
			{v.MarksOverrun, &t.losses.Overrun}, {v.Submitted, &submitted},
		} {
			errs = append(errs, g.v.Get(g.n))
		}
		if n := t.nread.Load(); submitted > n {
			t.losses.InFlight = submitted - n
		}
		// Threads still held were held until now at least: their
		// intervals are handed on as ending now, lest a window that ends
		// in a long hold miss its throttled time.
		now := monotonicNow()
		var tid uint32
		var h throttleHeld
		for it := t.objs.Held.Iterate(); it.Next(&tid, &h); {
			t.losses.OpenAtStop++
			if int64(h.StartNs) < now {
				t.onEvent(throttle.Event{CPU: int(h.Cpu), TID: int32(tid), Start: int64(h.StartNs), End: now, Group: h.Group})
			}
		}
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

// load loads the programs for the cgroup with kernfs id cgid, for the
// first of the attach points the kernel accepts. It returns them with
// their maps and variables, and the attach point; errors are worded for
// the user.
func load(cgid uint64, attaches []string) (*objects, string, error) {
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
		objs, err := loadOne(cgid, a)
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
// the maps they use, for the cgroup with kernfs id cgid.
func loadOne(cgid uint64, a string) (*objects, error) {
	spec, err := loadThrottle()
	if err != nil {
		return nil, err
	}
	var vars throttleVariableSpecs
	if err := spec.Assign(&vars); err != nil {
		return nil, err
	}
	if err := vars.TargetCgid.Set(cgid); err != nil {
		return nil, err
	}
	switch a {
	case AttachBTF:
		var o btfObjects
		if err := spec.LoadAndAssign(&o, nil); err != nil {
			return nil, err
		}
		return &objects{[2]*ebpf.Program{o.Switch, o.Wakeup}, o.throttleMaps, o.throttleVariables}, nil
	case AttachRaw:
		var o rawObjects
		if err := spec.LoadAndAssign(&o, nil); err != nil {
			return nil, err
		}
		return &objects{[2]*ebpf.Program{o.Switch, o.Wakeup}, o.throttleMaps, o.throttleVariables}, nil
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
