package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/childproto"
	"github.com/throttlebench/throttlebench/internal/driver"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/instances"
	"github.com/throttlebench/throttlebench/internal/report"
)

// InstanceChild is an instance's process (see childproto.Instance). It
// starts stopped: it runs nothing until Go, so that it is in its slice
// first.
type InstanceChild interface {
	Pid() int
	Go() error
	Send(r driver.InstanceRequest) error
	// Next blocks until the instance's next word: ready, a reply, or an
	// error (it failed, or ended).
	Next() (*driver.InstanceReady, *driver.InstanceReply, error)
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
	Local *Local
	// StartInstance starts an instance child, not yet running.
	StartInstance func(exe string, init driver.InstanceInit, stderr io.Writer) (InstanceChild, error)
	// ProcMemory reads a process's resident and peak memory.
	ProcMemory func(pid int) (host.Memory, error)
	// Monotonic is CLOCK_MONOTONIC, the clock the instances stamp with.
	Monotonic func() int64
	// Calibrate sizes the CPU loop's slices for the instances.
	Calibrate func() driver.Calibration
	// SampleEvery is how often the instances' memory is read (100 ms).
	SampleEvery time.Duration
	// ExitWait is how long retired instances may take to end at the end
	// of the run before they are killed (5 s).
	ExitWait time.Duration
}

// NewFleet returns the fleet on this machine's kernel.
func NewFleet() *Fleet { return &Fleet{} }

func (f Fleet) withDefaults() Fleet {
	if f.Local == nil {
		f.Local = &Local{}
	}
	if f.StartInstance == nil {
		f.StartInstance = startInstance
	}
	if f.ProcMemory == nil {
		f.ProcMemory = host.ProcMemory
	}
	if f.Monotonic == nil {
		f.Monotonic = driver.Monotonic
	}
	if f.Calibrate == nil {
		f.Calibrate = driver.Calibrate
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
func (f *Fleet) Run(ctx context.Context, o Options) (*report.Latency, error) {
	fl := f.withDefaults()
	k := fl.Local.withDefaults()
	spec := o.Open.Instances
	if spec == nil {
		return nil, errors.New("no instances to run on")
	}
	policy, err := instances.ParsePolicy(spec.Policy, spec.Concurrency, spec.KeepAlive)
	if err != nil {
		return nil, fmt.Errorf("invalid --instances %q: %v", spec.Policy, err)
	}
	started := time.Now()
	if o.Mode == ModeCurrent {
		return nil, fmt.Errorf("%w: it cannot run with --cgroup current", ErrInstancesNeedSlices)
	}
	p, err := k.placeSlices(ctx, o)
	var nh *noHierarchy
	if errors.As(err, &nh) {
		return nil, fmt.Errorf("%w: %w", ErrInstancesNeedSlices, nh.err)
	}
	if err != nil {
		return nil, err
	}
	if p.ownParent {
		defer p.removeDefaultParents(k)
	}
	cal := fl.Calibrate()
	gmp := o.Open.GOMAXPROCS
	if o.Policy == "workers" {
		gmp = policy.Concurrency // an instance's workers are its slots
	}
	r := &fleetRun{f: fl, k: k, o: o, place: p, started: started, warns: p.notes,
		init:   driver.InstanceInit{Init: spec.Init, InitMemory: spec.InitMemory, Concurrency: policy.Concurrency, IterationsPerMs: cal.IterationsPerMs, GOMAXPROCS: gmp},
		m:      instances.New(policy),
		events: make(chan fleetEvent, 64), quit: make(chan struct{}), cal: cal}
	return r.run(ctx)
}

// fleetRun is one configuration's run on instances. Its fields belong to
// the dispatching goroutine (run) unless they say otherwise.
type fleetRun struct {
	f       Fleet
	k       Local
	o       Options
	place   slicePlace
	init    driver.InstanceInit
	m       *instances.Machine
	cal     driver.Calibration
	started time.Time

	events   chan fleetEvent
	quit     chan struct{} // closed once nobody reads events
	quitOnce sync.Once
	wg       sync.WaitGroup // the instances' goroutines

	mu    sync.Mutex // guards insts (appended here, read by the sampler) and first
	insts []*liveInstance
	first *firstSlice

	warnMu sync.Mutex // guards warns, added to by the instances' goroutines
	warns  []string   // for the result's warnings

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
	reply                   *driver.InstanceReply
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

	// The dispatcher's own.
	asked   int64 // when the machine started it
	readyAt int64
	ready   *driver.InstanceReady
	retired bool
}

// fleetEvent is news from an instance's goroutine.
type fleetEvent struct {
	id    int
	at    int64 // CLOCK_MONOTONIC when it was read
	ready *driver.InstanceReady
	reply *driver.InstanceReply
	ended error // the instance ended: an error unless retired
	fatal error // the platform failed (a slice, a process): the run stops
}

func (r *fleetRun) now() int64 { return r.f.Monotonic() }

func (r *fleetRun) run(ctx context.Context) (*report.Latency, error) {
	sched := driver.Schedule(r.o.Open)
	r.reqs = make([]reqRecord, len(sched))
	for i := range r.reqs {
		r.reqs[i].instance = -1
	}
	defer r.stop()
	hostCPU := func() (host.CPUTimes, error) { return r.k.HostCPU(r.o.Host.Root) }
	bgBefore := read(hostCPU, nil, r.k.ProcessCPU)
	sampling := r.sample()

	r.t0 = r.now()
	next := 0
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := r.now()
		for next < len(sched) && r.t0+int64(sched[next]) <= now {
			r.reqs[next].arrival = r.t0 + int64(sched[next])
			r.late = max(r.late, time.Duration(now-r.reqs[next].arrival))
			r.apply(ctx, now, r.m.Arrive(time.Duration(now), next))
			next++
		}
		if r.fatal != nil {
			sampling()
			return nil, r.fatal
		}
		if next == len(sched) && r.m.Idle() {
			break
		}
		wake, ok := int64(0), false
		if next < len(sched) {
			wake, ok = r.t0+int64(sched[next]), true
		}
		if d, has := r.m.Deadline(); has && (!ok || int64(d) < wake) {
			wake, ok = int64(d), true
		}
		var tick <-chan time.Time
		if ok {
			timer.Reset(time.Duration(max(wake-now, 0)))
			tick = timer.C
		}
		select {
		case e := <-r.events:
			r.handle(ctx, e)
		case <-tick:
			t := r.now()
			r.apply(ctx, t, r.m.Tick(time.Duration(t)))
		case <-ctx.Done():
			sampling()
			return nil, ctx.Err()
		}
		timer.Stop() // since Go 1.23 a stopped timer delivers nothing stale
		if r.fatal != nil {
			sampling()
			return nil, r.fatal
		}
	}
	end := r.now()
	r.apply(ctx, end, r.m.Drain(time.Duration(end)))
	r.awaitEnds(ctx)
	sampling()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.stop()
	bgAfter := read(hostCPU, nil, r.k.ProcessCPU)
	return r.build(end, background(bgBefore, bgAfter))
}

// apply carries out the machine's actions; one that fails (a send to an
// instance that died) adds the machine's answer to it.
func (r *fleetRun) apply(ctx context.Context, now int64, acts []instances.Action) {
	for len(acts) > 0 {
		a := acts[0]
		acts = acts[1:]
		switch a.Kind {
		case instances.Start:
			li := &liveInstance{id: a.Instance, asked: now}
			r.mu.Lock()
			r.insts = append(r.insts, li)
			r.mu.Unlock()
			r.wg.Add(1)
			go r.instance(li)
		case instances.Send:
			li := r.insts[a.Instance]
			q := &r.reqs[a.Request]
			q.instance, q.cold = a.Instance, a.Cold
			q.sent = r.now()
			err := li.getChild().Send(driver.InstanceRequest{ID: a.Request, Work: r.o.Open.Work, Wait: r.o.Open.Wait})
			if err != nil {
				li.kill()
				t := r.now()
				acts = append(acts, r.m.Failed(time.Duration(t), a.Instance, fmt.Sprintf("instance %d: %v", a.Instance, err))...)
			}
		case instances.Retire:
			r.retire(r.insts[a.Instance])
		case instances.Fail:
			if q := &r.reqs[a.Request]; q.failed == "" {
				q.failed = a.Reason
			}
		}
	}
}

// retire reads an instance's last numbers while it lives, then lets it
// end (its goroutine removes its slice); one still starting is killed.
func (r *fleetRun) retire(li *liveInstance) {
	li.retired = true
	child := li.getChild()
	if child == nil {
		li.kill()
		return
	}
	r.measure(li, child.Pid())
	child.Retire()
}

// handle is the dispatcher's side of an instance's news.
func (r *fleetRun) handle(ctx context.Context, e fleetEvent) {
	li := r.insts[e.id]
	switch {
	case e.fatal != nil:
		if r.fatal == nil {
			r.fatal = e.fatal
		}
	case e.ended != nil:
		if !li.retired {
			r.apply(ctx, e.at, r.m.Failed(time.Duration(e.at), e.id, fmt.Sprintf("instance %d: %v", e.id, e.ended)))
		}
	case e.ready != nil:
		li.ready, li.readyAt = e.ready, e.at
		r.apply(ctx, e.at, r.m.Ready(time.Duration(e.at), e.id))
	case e.reply != nil:
		id := e.reply.ID
		if id < 0 || id >= len(r.reqs) || r.reqs[id].instance != e.id || r.reqs[id].reply != nil {
			r.apply(ctx, e.at, r.m.Failed(time.Duration(e.at), e.id, fmt.Sprintf("instance %d replied to request %d, which it was not serving", e.id, id)))
			li.kill()
			return
		}
		r.reqs[id].reply, r.reqs[id].received = e.reply, e.at
		r.apply(ctx, e.at, r.m.Done(time.Duration(e.at), e.id, id))
	}
}

// instance is one instance's goroutine: it creates the slice, starts the
// process in it, relays what the process says, and when the process has
// ended (or could not start) reads the slice's counters and removes it.
func (r *fleetRun) instance(li *liveInstance) {
	defer r.wg.Done()
	emit := func(e fleetEvent) {
		e.id = li.id
		select {
		case r.events <- e:
		case <-r.quit:
		}
	}
	// The default parent is removed once, when the whole run ends.
	slice, err := r.k.Cgroups.CreateSlice(r.place.hier, r.place.spec(r.o))
	if err != nil {
		emit(fleetEvent{fatal: r.place.needsPrivilege(err, "")})
		return
	}
	defer func() {
		// The process has ended (its Kill, deferred later, ran first):
		// the slice's usage counter holds all the CPU it used in there,
		// also for an instance that died before it was ever sampled.
		st, serr := slice.Stat()
		usage, uerr := slice.Usage()
		li.mu.Lock()
		li.stat, li.statErr = st, serr
		if uerr == nil {
			li.cpu, li.cpuOK = max(li.cpu, usage), true
		}
		li.mu.Unlock()
		if err := slice.Delete(); err != nil {
			r.warnMu.Lock()
			r.warns = append(r.warns, fmt.Sprintf("the slice of instance %d could not be removed: %v", li.id, err))
			r.warnMu.Unlock()
		}
	}()
	r.readFirst(slice)
	child, err := r.f.StartInstance(r.o.Exe, r.init, r.o.Stderr)
	if err != nil {
		emit(fleetEvent{fatal: err})
		return
	}
	defer child.Kill()
	if !li.setChild(child) {
		return // killed while it started
	}
	if err := slice.AddProc(child.Pid()); err != nil {
		emit(fleetEvent{fatal: fmt.Errorf("move instance process into %s: %w", slice.Cgroup().Dir, err)})
		return
	}
	if err := child.Go(); err != nil {
		emit(fleetEvent{at: r.now(), ended: fmt.Errorf("start: %w", err)})
		return
	}
	for {
		ready, reply, err := child.Next()
		at := r.now()
		if err != nil {
			li.mu.Lock()
			li.ended = true
			li.mu.Unlock()
			emit(fleetEvent{at: at, ended: err})
			return
		}
		emit(fleetEvent{at: at, ready: ready, reply: reply})
	}
}

// readFirst keeps the first slice's limits as the kernel took them.
func (r *fleetRun) readFirst(s Slice) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.first != nil {
		return
	}
	limits, chain, err := readBack(s)
	r.first = &firstSlice{cg: s.Cgroup(), limits: limits, chain: chain, err: err}
}

func (li *liveInstance) setChild(c InstanceChild) bool {
	li.mu.Lock()
	defer li.mu.Unlock()
	if li.killed {
		return false
	}
	li.child = c
	return true
}

func (li *liveInstance) getChild() InstanceChild {
	li.mu.Lock()
	defer li.mu.Unlock()
	return li.child
}

// kill ends the instance's process now, or as soon as it has one.
func (li *liveInstance) kill() {
	li.mu.Lock()
	li.killed = true
	c := li.child
	li.mu.Unlock()
	if c != nil {
		c.Kill()
	}
}

// measure reads an instance's CPU time and memory while it lives. Its
// CPU time only grows: the most read (here, or from its slice's usage
// once it has ended) is kept.
func (r *fleetRun) measure(li *liveInstance, pid int) (rss int64) {
	cpu, cerr := r.k.PIDCPU(pid)
	mem, merr := r.f.ProcMemory(pid)
	li.mu.Lock()
	defer li.mu.Unlock()
	if cerr == nil {
		li.cpu, li.cpuOK = max(li.cpu, cpu), true
	}
	if merr == nil {
		li.mem.RSS = mem.RSS
		li.mem.Peak = max(li.mem.Peak, mem.Peak, mem.RSS)
		return mem.RSS
	}
	return 0
}

// sample reads every live instance's memory and CPU time every
// SampleEvery, keeping the peak of their memory together, until the
// returned stop is called.
func (r *fleetRun) sample() (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(r.f.SampleEvery)
		defer t.Stop()
		for {
			r.mu.Lock()
			live := append([]*liveInstance(nil), r.insts...)
			r.mu.Unlock()
			var sum int64
			for _, li := range live {
				li.mu.Lock()
				c, ended := li.child, li.ended
				li.mu.Unlock()
				if c != nil && !ended {
					sum += r.measure(li, c.Pid())
				}
			}
			r.peakRSS = max(r.peakRSS, sum)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-stopped
		})
	}
}

// awaitEnds waits, after the last retirement, for every instance to end
// and its slice to go; those that take longer than ExitWait are killed.
func (r *fleetRun) awaitEnds(ctx context.Context) {
	r.quitOnce.Do(func() { close(r.quit) })
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(r.f.ExitWait):
		fmt.Fprintf(r.o.Stderr, "throttlebench: instances still running %v after they were retired; killed\n", r.f.ExitWait)
	case <-ctx.Done():
	}
}

// stop ends every instance (a no-op for those already ended) and waits
// until every slice has been removed. It is safe to call again.
func (r *fleetRun) stop() {
	r.quitOnce.Do(func() { close(r.quit) })
	r.mu.Lock()
	live := append([]*liveInstance(nil), r.insts...)
	r.mu.Unlock()
	for _, li := range live {
		li.kill()
	}
	r.wg.Wait()
}

// build turns the records into the report.
func (r *fleetRun) build(end int64, bg report.Background) (*report.Latency, error) {
	if r.first == nil {
		return nil, errors.New("no instance was started")
	}
	if r.first.err != nil {
		return nil, r.first.err
	}
	// GOMAXPROCS as the first instance that became ready reported it (the
	// value in force, 0 asking for the runtime's default); as asked when
	// none did.
	gmp := r.init.GOMAXPROCS
	for _, li := range r.insts {
		if li.ready != nil && li.ready.GOMAXPROCS > 0 {
			gmp = li.ready.GOMAXPROCS
			break
		}
	}
	in := report.InstancesInput{Open: r.o.Open, Policy: r.o.Policy, Cgroup: r.first.cg, Limits: r.first.limits, Chain: r.first.chain,
		NumCPU: runtime.NumCPU(), Host: r.k.HostInfo(r.started), GOMAXPROCS: gmp, Calibration: r.cal,
		Started: len(r.m.Instances()), Peak: r.m.Peak(), PeakRSS: r.peakRSS,
		Window: time.Duration(end - r.t0), Late: r.late, Background: bg}
	for _, q := range r.reqs {
		row := report.InstanceRequest{Arrival: time.Duration(q.arrival - r.t0), Instance: q.instance, Cold: q.cold, Failed: q.failed}
		switch {
		case q.failed != "":
		case q.reply == nil:
			row.Failed = "no reply" // cannot be: the machine drained idle
		default:
			row.WaitInstance = time.Duration(q.sent - q.arrival)
			row.Queue = time.Duration(q.reply.Start - q.sent)
			row.Service = time.Duration(q.reply.End - q.reply.Start)
			row.Response = time.Duration(q.received - q.arrival)
			row.CPU = q.reply.CPU
		}
		in.Requests = append(in.Requests, row)
	}
	var stat cgroup.CPUStat
	haveStat := false
	for i, x := range r.m.Instances() {
		li := r.insts[i]
		rec := report.InstanceRecord{Started: time.Duration(x.Started) - time.Duration(r.t0), ColdStart: -1, InitCPU: -1, CPU: -1,
			Lifetime: x.Lifetime(), Served: x.Served, Failed: x.Failed}
		if li.ready != nil {
			rec.ColdStart = time.Duration(li.readyAt - li.asked)
			rec.InitCPU = li.ready.CPU
		}
		li.mu.Lock()
		if li.cpuOK {
			rec.CPU = li.cpu
		}
		rec.PeakRSS = li.mem.Peak
		if li.statErr == nil {
			if haveStat {
				stat = addStat(stat, li.stat)
			} else {
				stat, haveStat = li.stat, true
			}
		}
		li.mu.Unlock()
		in.Instances = append(in.Instances, rec)
	}
	in.Stat = stat
	// A run where nothing was served (a shared instance whose cold start
	// failed) is still a result: completed 0, and the warnings say why.
	res := report.BuildInstances(in)
	r.warnMu.Lock()
	for _, w := range r.warns {
		res.AddWarning(w)
	}
	r.warnMu.Unlock()
	return res, nil
}

// addStat sums two slices' counters; a counter one of them lacks is
// unknown in the sum.
func addStat(sum, s cgroup.CPUStat) cgroup.CPUStat {
	u := func(a, b *uint64) *uint64 {
		if a == nil || b == nil {
			return nil
		}
		v := *a + *b
		return &v
	}
	d := func(a, b *time.Duration) *time.Duration {
		if a == nil || b == nil {
			return nil
		}
		v := *a + *b
		return &v
	}
	return cgroup.CPUStat{NrPeriods: u(sum.NrPeriods, s.NrPeriods), NrThrottled: u(sum.NrThrottled, s.NrThrottled),
		ThrottledTime: d(sum.ThrottledTime, s.ThrottledTime), NrBursts: u(sum.NrBursts, s.NrBursts), BurstTime: d(sum.BurstTime, s.BurstTime)}
}

// startInstance starts an instance child (see childproto.StartInstance).
func startInstance(exe string, init driver.InstanceInit, stderr io.Writer) (InstanceChild, error) {
	c, err := childproto.StartInstance(exe, init, stderr)
	if err != nil {
		return nil, err
	}
	return c, nil
}
