//go:build linux

package tracer

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
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

// progFor names each attach point's programs in throttle.bpf.c: the one on
// sched_switch first, then the one on sched_wakeup.
var progFor = map[string][]string{
	AttachBTF: {"sched_switch_btf", "sched_wakeup_btf"},
	AttachRaw: {"sched_switch_raw", "sched_wakeup_raw"},
}

// tracepoints are the scheduler's tracepoints the programs attach to, in
// progFor's order.
var tracepoints = []string{"sched_switch", "sched_wakeup"}

// readEvery is how often the reader looks at the ring buffer when the
// program has not woken it.
const readEvery = 100 * time.Millisecond

// btfPath is where the kernel publishes its own BTF; CO-RE needs it.
const btfPath = "/sys/kernel/btf/vmlinux"

// Tracer is one attached throttle tracer. Stop it on every exit path.
type Tracer struct {
	attach string
	coll   *ebpf.Collection
	prog   *ebpf.Program // the one on sched_switch
	links  []link.Link
	rd     *ringbuf.Reader
	done   chan struct{} // closed when the reading goroutine has returned

	once sync.Once
	lost uint64
	err  error
}

// Probe says whether throttle events can be traced here and, if not, why:
// it loads the program (tp_btf, then raw_tp) without attaching it and
// closes it at once.
func Probe() error {
	coll, _, _, err := load(0, attachOrder)
	if err != nil {
		return err
	}
	coll.Close()
	return nil
}

// Start traces the cgroup at cgroupDir (a directory of the cpu controller's
// hierarchy, v1 or v2; its descendants are traced too): it loads and
// attaches the program and calls onEvent, from a goroutine of its own, for
// each held interval that ends. Intervals still open at Stop are not
// reported. onEvent must not call Stop.
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
	coll, progs, attach, err := load(st.Ino, attaches)
	if err != nil {
		return nil, err
	}
	t := &Tracer{attach: attach, coll: coll, prog: progs[0], done: make(chan struct{})}
	fail := func(err error) (*Tracer, error) {
		for _, l := range t.links {
			l.Close()
		}
		coll.Close()
		return nil, err
	}
	t.links, err = attachAll(attach, progs)
	if err != nil {
		return fail(err)
	}
	t.rd, err = ringbuf.NewReader(coll.Maps["events"])
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
		// A record of another size would mean a stale object; the
		// staleness test guards against it, so it is dropped here.
		if e, err := decode(rec.RawSample); err == nil {
			onEvent(e)
		}
	}
}

// Attach names the attach point in use: AttachBTF or AttachRaw.
func (t *Tracer) Attach() string { return t.attach }

// Stop detaches the program first, so no new events start, then hands what
// is left in the ring buffer to onEvent, and closes the reader, program and
// maps. lost counts the events dropped because the ring buffer was full.
// It is safe to call twice; the second call returns the first's results.
func (t *Tracer) Stop() (lost uint64, err error) {
	t.once.Do(func() {
		var errs []error
		for _, l := range t.links {
			errs = append(errs, l.Close())
		}
		// Flush wakes the reader, which returns what was pending, then
		// ErrFlushed. (A program run already under way on another CPU
		// when the link closed may still submit after this: lost to us.)
		if err := t.rd.Flush(); err != nil {
			errs = append(errs, err)
		}
		<-t.done
		errs = append(errs, t.rd.Close())
		if v := t.coll.Variables["lost"]; v != nil {
			errs = append(errs, v.Get(&t.lost))
		}
		t.coll.Close()
		if err := errors.Join(errs...); err != nil {
			t.err = fmt.Errorf("stop throttle tracer: %w", err)
		}
	})
	return t.lost, t.err
}

// attachAll attaches the programs (progFor's order) to their tracepoints,
// typed or raw as attach says; on error it closes what it attached.
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
// first of the attach points the kernel accepts. It returns the collection
// (the programs and their maps), the programs in progFor's order and the
// attach point; errors are worded for the user.
func load(cgid uint64, attaches []string) (*ebpf.Collection, []*ebpf.Program, string, error) {
	if _, err := os.Stat(btfPath); err != nil {
		return nil, nil, "", fmt.Errorf("tracing throttle events needs the kernel's BTF (CONFIG_DEBUG_INFO_BTF), and %s is missing: %w", btfPath, err)
	}
	// Kernels before 5.11 charge BPF maps to RLIMIT_MEMLOCK; later
	// ones to the cgroup, and then this does nothing.
	if err := rlimit.RemoveMemlock(); err != nil {
		return nil, nil, "", explain(err)
	}
	var first error
	var rest []string
	for _, a := range attaches {
		coll, progs, err := loadOne(cgid, progFor[a]...)
		if err == nil {
			return coll, progs, a, nil
		}
		if isPerm(err) {
			// Every attach point needs the same privileges: no next try.
			return nil, nil, "", explain(err)
		}
		if first == nil {
			first = explain(err)
		} else {
			rest = append(rest, fmt.Sprintf("; %s: %v", a, err))
		}
	}
	// The first attach point's error, for the user; then the others'.
	return nil, nil, "", fmt.Errorf("%w%s (tried %s)", first, strings.Join(rest, ""), strings.Join(attaches, ", "))
}

// loadOne loads the programs named and the maps they use, not the others,
// and returns them in the order named.
func loadOne(cgid uint64, names ...string) (*ebpf.Collection, []*ebpf.Program, error) {
	spec, err := loadThrottle()
	if err != nil {
		return nil, nil, err
	}
	for n := range spec.Programs {
		if !slices.Contains(names, n) {
			delete(spec.Programs, n)
		}
	}
	if err := spec.Variables["target_cgid"].Set(cgid); err != nil {
		return nil, nil, err
	}
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		return nil, nil, err
	}
	progs := make([]*ebpf.Program, len(names))
	for i, n := range names {
		progs[i] = coll.Programs[n]
	}
	return coll, progs, nil
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
