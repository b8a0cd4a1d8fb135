package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/childproto"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/instances"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
)

// InstanceChild is an instance's process (see childproto.Instance). It
// starts stopped: it runs nothing until Go, so that it is in its slice
// first.
type InstanceChild interface {
	Pid() int
	Go() error
	Send(r bench.InstanceRequest) error
	// Next blocks until the instance's next word: ready, a reply, or an
	// error (it failed, or ended).
	Next() (*bench.InstanceReady, *bench.InstanceReply, error)
	Retire() // close its input: it ends once its requests are done
	Kill()   // end it now and reap it; harmless once it has exited
}

// Fleet runs latency's requests on instances (latency --instances): the
// parent, in no slice, dispatches the schedule by an instances.Machine;
// each instance is a child in a slice of its own with the run's full
// limits, created when the machine starts it and removed when it retires
// or fails, and on every other way out. Local supplies the kernel, the
// host and the cgroups; the fields below the instances' own seams.
type Fleet struct {
	Local *runner.Local
	// StartInstance starts an instance child, not yet running.
	StartInstance func(exe string, init bench.InstanceInit, stderr io.Writer) (InstanceChild, error)
	// ProcMemory reads a process's resident and peak memory.
	ProcMemory func(pid int) (host.Memory, error)
	// Monotonic is CLOCK_MONOTONIC, the clock the instances stamp with.
	Monotonic func() int64
	// Calibrate sizes the CPU loop's slices for the instances.
	Calibrate func() bench.Calibration
	// SampleEvery is how often the instances' memory is read (100 ms).
	SampleEvery time.Duration
	// ExitWait is how long retired instances may take to end at the end
	// of the run before they are killed (5 s).
	ExitWait time.Duration
	// NoFloor skips the floor (measureFloor) and its instance, for tests
	// that count the run's own.
	NoFloor bool
}

// NewFleet returns the fleet on this machine's kernel.
func NewFleet() *Fleet { return &Fleet{} }

// withDefaults fills the seams left nil with this machine's, reading
// /proc below root (the run's injected root).
func (f Fleet) withDefaults(root string) Fleet {
	if f.Local == nil {
		f.Local = &runner.Local{}
	}
	if f.StartInstance == nil {
		f.StartInstance = startInstance
	}
	if f.ProcMemory == nil {
		f.ProcMemory = func(pid int) (host.Memory, error) { return host.ProcMemory(root, pid) }
	}
	if f.Monotonic == nil {
		f.Monotonic = bench.Monotonic
	}
	if f.Calibrate == nil {
		f.Calibrate = bench.Calibrate
	}
	if f.SampleEvery <= 0 {
		f.SampleEvery = 100 * time.Millisecond
	}
	if f.ExitWait <= 0 {
		f.ExitWait = 5 * time.Second
	}
	return f
}

// ErrInstancesNeedSlices says that --instances cannot run in the current
// cgroup: every instance needs a slice of its own.
var ErrInstancesNeedSlices = errors.New("--instances needs slices of its own")

// Run runs one configuration on instances (o.Open.Instances) and returns
// its report. Whatever happens, every slice it created is removed and
// every instance it started has ended when it returns.
func (f *Fleet) Run(ctx context.Context, o runner.Options) (*report.Latency, error) {
	fl := f.withDefaults(o.Host.Root)
	if f.Local == nil {
		defer fl.Local.Close() // a Local of this run's own
	}
	k := fl.Local.Prepare()
	spec := o.Open.Instances
	if spec == nil {
		return nil, errors.New("no instances to run on")
	}
	policy, err := instances.ParsePolicy(spec.Policy, spec.Concurrency, spec.KeepAlive)
	if err != nil {
		return nil, fmt.Errorf("invalid --instances %q: %v", spec.Policy, err)
	}
	started := time.Now()
	if o.Mode == runner.ModeCurrent {
		return nil, fmt.Errorf("%w: it cannot run with --cgroup current", ErrInstancesNeedSlices)
	}
	p, err := k.Place(ctx, o)
	if why, ok := runner.NoHierarchy(err); ok {
		return nil, fmt.Errorf("%w: %w", ErrInstancesNeedSlices, why)
	}
	if err != nil {
		return nil, err
	}
	if p.OwnParent() {
		defer p.RemoveDefaultParents()
	}
	cal := fl.Calibrate()
	gmp := o.Open.GOMAXPROCS
	if o.Policy == "workers" {
		gmp = policy.Concurrency // an instance's workers are its slots
	}
	var floor *bench.Floor
	warns := p.Notes()
	if !fl.NoFloor {
		var why string
		if floor, why, err = fl.measureFloor(ctx, k, o, p, cal, gmp); err != nil {
			return nil, err
		}
		if why != "" {
			warns = append(warns, report.Warning{Kind: report.KindNoFloor, Text: why})
		}
	}
	r := &fleetRun{f: fl, k: k, o: o, place: p, started: started, warns: warns, floor: floor,
		init:   bench.InstanceInit{Init: spec.Init, InitMemory: spec.InitMemory, Concurrency: policy.Concurrency, IterationsPerMs: cal.IterationsPerMs, GOMAXPROCS: gmp},
		m:      instances.New(policy),
		events: make(chan fleetEvent, 64), quit: make(chan struct{}), cal: cal}
	// Traced, the events of every instance's slice and of no other group:
	// each slice is tracked as it is made and untracked after its
	// counters' last read, before its removal (other runs' slices may
	// share the parent). The Local's tracer is attached, if it is not yet,
	// before the first request arrives: attached in the first cold start,
	// its 0.2 s were every waiting request's. The window runs from when the
	// first slice is made (startTrace) to after the last slice is removed,
	// as the instances' summed counters do.
	r.tw = k.TraceTracked(o, p.Parent())
	defer r.tw.Stop()
	return r.run(ctx)
}

// fleetRun is one configuration's run on instances. Its fields belong to
// the dispatching goroutine (run) unless they say otherwise.
type fleetRun struct {
	f       Fleet
	k       runner.Local
	o       runner.Options
	place   *runner.Place
	tw      *tracewindow.Window // --trace; nil without
	twOnce  sync.Once
	init    bench.InstanceInit
	m       *instances.Machine
	cal     bench.Calibration
	started time.Time

	events   chan fleetEvent
	quit     chan struct{} // closed once nobody reads events
	quitOnce sync.Once
	wg       sync.WaitGroup // the instances' goroutines

	mu    sync.Mutex // guards insts (appended here, read by the sampler) and first
	insts []*liveInstance
	first *firstSlice

	warnMu sync.Mutex       // guards warns, added to by the instances' goroutines
	warns  []report.Warning // for the result's warnings

	sched []time.Duration // nil: the run's (runspec.Schedule)
	// primed: sched[0] is a primer, and the rest of sched is dispatched
	// from its answer on (measureFloor), so that no request but the
	// primer waits for the instance's cold start.
	primed  bool
	rebased bool         // r.t0 moved to the primer's answer (primerDone)
	floor   *bench.Floor // measured before the run (floor.go)
	reqs    []reqRecord
	t0      int64
	late    time.Duration
	peakRSS int64 // written by the sampler, read once it has stopped
	fatal   error
}

// firstSlice is the first instance's slice as the kernel took it: where
// the report says the run was, with what limits.
type firstSlice struct {
	cg     cgroup.Cgroup
	limits cgroup.Limits
	chain  []cgroup.Level
	err    error
}

// reqRecord is one request, on CLOCK_MONOTONIC.
type reqRecord struct {
	arrival, sent, received int64
	reply                   *bench.InstanceReply
	instance                int
	cold                    bool
	failed                  string
}

// liveInstance is one instance: what its goroutine and the dispatcher
// share (under mu), and what the dispatcher alone keeps.
type liveInstance struct {
	id      int
	mu      sync.Mutex
	child   InstanceChild
	killed  bool // set by kill: a child started later is killed at once
	cpu     time.Duration
	cpuOK   bool
	mem     host.Memory
	ended   bool
	stat    cgroup.CPUStat
	statErr error
	group   uint64 // its slice's id to the tracer (--trace; else 0)

	// The dispatcher's own.
	asked   int64 // when the machine started it
	readyAt int64
	ready   *bench.InstanceReady
	retired bool
}

// fleetEvent is news from an instance's goroutine.
type fleetEvent struct {
	id    int
	at    int64 // CLOCK_MONOTONIC when it was read
	ready *bench.InstanceReady
	reply *bench.InstanceReply
	ended error // the instance ended: an error unless retired
	fatal error // the platform failed (a slice, a process): the run stops
}

// startInstance starts an instance child (see childproto.StartInstance).
func startInstance(exe string, init bench.InstanceInit, stderr io.Writer) (InstanceChild, error) {
	c, err := childproto.StartInstance(exe, init, stderr)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// startTrace opens the window, once, when the first slice exists (the
// default parent, whose family it reads, is made with it); the slices are
// tracked one by one.
func (r *fleetRun) startTrace() {
	r.twOnce.Do(func() {
		r.tw.Open()
	})
}
