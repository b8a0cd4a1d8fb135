package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/runner/runnertest"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// fleetWorld fakes the kernel and the instances of a Fleet: runnertest's
// kernel, whose slices are numbered and removed only once their process is
// gone, and children that take coldStart to start and service to serve a
// request, on real (short) time. It is used from many goroutines.
type fleetWorld struct {
	runnertest.Kernel
	mu        sync.Mutex
	coldStart time.Duration
	service   time.Duration
	// failStart makes the instance of that number (in the order started)
	// die during its cold start; crashAfter makes it die with its
	// (crashAfter+1)th request in flight.
	failStart  map[int]bool
	crashAfter map[int]int
	// sendFail makes Send to that instance fail (a broken pipe);
	// badReply makes it reply to a request it was not sent.
	sendFail, badReply map[int]bool
	// usage is every slice's usage counter once its process has ended
	// (0: the slices have none, as v1 with cpuacct apart).
	usage time.Duration
	// createErr refuses every slice after the first.
	createErr error
	// onReady runs when an instance is ready (a cancel, say).
	onReady func()
	// gomaxprocs is what an instance reports in force when it is asked
	// for none (the runtime's default).
	gomaxprocs int
	// lingers makes a retired instance run on until it is killed.
	lingers bool

	children []*fakeInstance
}

// refuse is the kernel's hook: createErr, and a slice removed while its
// process lives.
func (w *fleetWorld) refuse(event, dir string) error {
	switch event {
	case "create":
		if w.createErr != nil && len(w.Created()) > 0 {
			return w.createErr
		}
	case "delete":
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, c := range w.children {
			if w.Into(c.pid) == dir && !c.isDead() {
				return fmt.Errorf("%s still holds %d", dir, c.pid)
			}
		}
	}
	return nil
}

// fakeInstance is an instance child on goroutines.
type fakeInstance struct {
	w       *fleetWorld
	n, pid  int
	out     chan fakeWord
	mu      sync.Mutex
	dead    bool
	retired bool
	served  int
	crash   int // -1: never
	inside  int // requests in flight now
	most    int // and at most
	wg      sync.WaitGroup
	done    chan struct{}
	// gomaxprocs is what it reports in force when ready.
	gomaxprocs int
}

type fakeWord struct {
	ready *bench.InstanceReady
	reply *bench.InstanceReply
	err   error
}

func (w *fleetWorld) start(_ string, init bench.InstanceInit, _ io.Writer) (InstanceChild, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.children)
	c := &fakeInstance{w: w, n: n, pid: 1000 + n, out: make(chan fakeWord, 100), crash: -1, done: make(chan struct{}), gomaxprocs: init.GOMAXPROCS}
	if c.gomaxprocs <= 0 {
		c.gomaxprocs = w.gomaxprocs
	}
	if k, ok := w.crashAfter[n]; ok {
		c.crash = k
	}
	// The slice it goes to is the last created: StartInstance follows
	// CreateSlice in the same goroutine, but others may interleave, so
	// the test looks it up by the move instead (Kernel.Into).
	w.children = append(w.children, c)
	return c, nil
}

func (c *fakeInstance) Pid() int { return c.pid }

func (c *fakeInstance) isDead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

func (c *fakeInstance) Go() error {
	c.w.mu.Lock()
	fail, onReady := c.w.failStart[c.n], c.w.onReady
	c.w.mu.Unlock()
	go func() {
		select {
		case <-time.After(c.w.coldStart):
		case <-c.done:
			return
		}
		if fail {
			c.die(errors.New("workload process died: exit status 2"))
			return
		}
		now := bench.Monotonic()
		c.word(fakeWord{ready: &bench.InstanceReady{Start: now - int64(c.w.coldStart), End: now, CPU: c.w.coldStart, GOMAXPROCS: c.gomaxprocs}})
		if onReady != nil {
			onReady()
		}
	}()
	return nil
}

func (c *fakeInstance) word(w fakeWord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dead {
		c.out <- w
	}
}

func (c *fakeInstance) die(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return
	}
	c.dead = true
	close(c.done)
	c.out <- fakeWord{err: err}
}

func (c *fakeInstance) Send(r bench.InstanceRequest) error {
	c.w.mu.Lock()
	sendFail, badReply := c.w.sendFail[c.n], c.w.badReply[c.n]
	c.w.mu.Unlock()
	c.mu.Lock()
	if c.dead || c.retired || sendFail {
		c.mu.Unlock()
		return errors.New("broken pipe")
	}
	if badReply {
		r.ID += 1000
	}
	c.served++
	crash := c.crash >= 0 && c.served > c.crash
	c.inside++
	c.most = max(c.most, c.inside)
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		start := bench.Monotonic()
		select {
		case <-time.After(c.w.service):
		case <-c.done:
			return
		}
		if crash {
			c.die(errors.New("workload process died: signal: killed"))
			return
		}
		c.mu.Lock()
		c.inside--
		c.mu.Unlock()
		c.word(fakeWord{reply: &bench.InstanceReply{ID: r.ID, Start: start, End: bench.Monotonic(), CPU: r.Work}})
	}()
	return nil
}

func (c *fakeInstance) Next() (*bench.InstanceReady, *bench.InstanceReply, error) {
	w := <-c.out
	return w.ready, w.reply, w.err
}

func (c *fakeInstance) Retire() {
	c.mu.Lock()
	c.retired = true
	c.mu.Unlock()
	if c.w.lingers {
		return
	}
	go func() {
		c.wg.Wait()
		c.die(io.EOF)
	}()
}

func (c *fakeInstance) Kill() { c.die(errors.New("killed")) }

func (w *fleetWorld) fleet() *Fleet {
	w.Numbered, w.Hook = true, w.refuse
	w.Fail = map[string]error{"self": errors.New("no current cgroup")}
	if w.usage > 0 {
		w.UsageAt = func() time.Duration { return w.usage }
	} else {
		w.Fail["usage"] = errors.New("no usage counter")
	}
	w.StatAt = func() cgroup.CPUStat {
		p, th := uint64(10), uint64(2)
		return cgroup.CPUStat{NrPeriods: &p, NrThrottled: &th}
	}
	return &Fleet{
		Local: &runner.Local{Machine: runner.Machine{
			Cgroups:    runnertest.Cgroups[runner.Slice, runner.Current]{Kernel: &w.Kernel},
			HostCPU:    w.HostCPU,
			ProcessCPU: w.ProcessCPU,
			HostInfo:   w.HostInfo,
			PIDCPU:     func(pid int) (time.Duration, error) { return 30 * time.Millisecond, nil },
		}},
		StartInstance: w.start,
		ProcMemory:    func(pid int) (host.Memory, error) { return host.Memory{RSS: 10 << 20, Peak: 12 << 20}, nil },
		Calibrate:     func() bench.Calibration { return bench.Calibration{IterationsPerMs: 1000} },
		SampleEvery:   5 * time.Millisecond,
		NoFloor:       true, // TestFleetFloor measures it
	}
}

func fleetOptions(policy string, n, concurrency int) runner.Options {
	o := runner.Options{Options: plan.Options{
		Bench:  runspec.ClosedLoop{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 1, Iterations: 2, Warmup: 1, Workers: 1},
		Mode:   runner.ModeCreate,
		Limits: cgroup.Limits{Period: 100 * time.Millisecond, Quota: 10 * time.Millisecond},
	}, Env: runner.Env{Exe: "/bin/tb", Stderr: io.Discard}}
	o.Open = runspec.OpenLoop{Arrivals: runspec.ArrivalsOnce, Count: n, Work: 3 * time.Millisecond, Wait: 10 * time.Millisecond,
		Instances: &runspec.Instances{Policy: policy, Concurrency: concurrency, KeepAlive: time.Minute, BillGranularity: time.Millisecond}}
	o.Policy = "workers"
	return o
}

// allGone checks that every slice created was removed and every instance
// ended.
func (w *fleetWorld) allGone(t *testing.T) {
	t.Helper()
	assert.ElementsMatch(t, w.Created(), w.Deleted(), "every slice created is removed")
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.children {
		assert.True(t, c.isDead(), "instance %d ended", c.n)
	}
}

// Tests whose assertions hang on the fake's real, short times (cold starts
// against arrivals, the keep-alive's timer, the floor's latencies) run
// alone; the others in parallel.

// Per-request, ten at once: ten slices, ten instances, ten cold starts,
// each moved into its own slice before it runs; all removed at the end.
func TestFleetPerRequest(t *testing.T) {
	w := &fleetWorld{coldStart: 20 * time.Millisecond, service: 15 * time.Millisecond}
	rep, err := w.fleet().Run(context.Background(), fleetOptions("per-request", 10, 80))
	require.NoError(t, err)
	w.allGone(t)
	assert.Len(t, w.Created(), 10)
	moves := 0
	log := w.Log()
	for _, l := range log {
		if strings.HasPrefix(l, "move ") {
			moves++
		}
	}
	assert.Equal(t, 10, moves, "each instance in a slice")
	assert.Equal(t, "remove parent", log[len(log)-1], "the default parent last")

	res := rep.InstancesResult
	require.NotNil(t, res)
	assert.Equal(t, 10, res.InstancesStarted)
	assert.Equal(t, 10, res.ColdStarts)
	assert.Equal(t, 10, res.PeakInstances)
	assert.Equal(t, 10, rep.Completed)
	assert.Equal(t, 10, rep.Offered)
	assert.Zero(t, res.Failed)
	assert.Equal(t, "per-request", rep.Config.Instances)
	assert.Equal(t, 1, rep.Config.Concurrency, "asked 80, but per-request serves one at a time")
	assert.Equal(t, 1, rep.Config.GOMAXPROCS, "workers: an instance's slots, one")
	assert.GreaterOrEqual(t, res.PeakRSSBytes, int64(12<<20), "at least one instance's own peak")
	assert.LessOrEqual(t, res.PeakRSSBytes, int64(100<<20), "at most all ten's resident sets")
	require.NotNil(t, rep.CPUMs)
	assert.InDelta(t, 300, *rep.CPUMs, 1e-9, "30 ms each, read as each retired")
	require.NotNil(t, rep.Throttling.NrPeriods)
	assert.Equal(t, uint64(100), *rep.Throttling.NrPeriods, "summed over the ten slices")
	assert.Equal(t, uint64(20), *rep.Throttling.NrThrottled)
	// The report names the slice whose limits were read back first: the
	// ten start at once, so any of them (tb-1 in a CI run, where tb-0 was
	// expected).
	assert.Contains(t, w.Created(), rep.Cgroup.Dir)
	assert.Equal(t, int64(20_000), rep.Cgroup.QuotaUs)

	ids := map[int]bool{}
	for _, q := range res.Requests {
		require.NotNil(t, q.ResponseMs)
		assert.True(t, q.Cold)
		ids[q.Instance] = true
		assert.GreaterOrEqual(t, *q.WaitInstanceMs, 20.0, "request %d waited for a cold start", q.ID)
		assert.GreaterOrEqual(t, *q.ServiceMs, 15.0)
		assert.GreaterOrEqual(t, *q.ResponseMs, *q.WaitInstanceMs+*q.QueueMs+*q.ServiceMs-1e-6)
	}
	assert.Len(t, ids, 10, "one instance each")
	for _, in := range res.PerInstance {
		require.NotNil(t, in.ColdStartMs)
		assert.GreaterOrEqual(t, *in.ColdStartMs, 20.0)
		assert.Equal(t, 1, in.Served)
		assert.Equal(t, int64(12<<20), in.PeakRSS)
	}
	// Bills: each request's service (≥ 15 ms) rounded up to the ms, at
	// 12 MiB; each instance's life at the share (20 ms per 100 ms).
	assert.GreaterOrEqual(t, res.Bill.RequestMs, 150.0)
	assert.InDelta(t, res.Bill.RequestMs/1000*12.0/1024, res.Bill.RequestGBs, 1e-9)
	assert.InDelta(t, res.Bill.InstanceMs/1000*0.2, res.Bill.InstanceCPUs, 1e-9)
	assert.Contains(t, strings.Join(report.Texts(rep.Warnings), "\n"), "few requests: 10 served")
}

// Shared: one instance, never more than its concurrency in flight.
func TestFleetShared(t *testing.T) {
	w := &fleetWorld{coldStart: 10 * time.Millisecond, service: 10 * time.Millisecond}
	rep, err := w.fleet().Run(context.Background(), fleetOptions("shared", 7, 3))
	require.NoError(t, err)
	w.allGone(t)
	require.Len(t, w.children, 1)
	assert.Equal(t, 3, w.children[0].most)
	res := rep.InstancesResult
	assert.Equal(t, 1, res.InstancesStarted)
	assert.Equal(t, 1, res.ColdStarts)
	assert.Equal(t, 7, rep.Completed)
	assert.Equal(t, 3, rep.Config.GOMAXPROCS)
	// The last of 7 in slots of 3 waits two services for a slot.
	assert.GreaterOrEqual(t, res.PercentilesMs.WaitInstance.Max, 10.0+2*10.0)
	// The three that waited for the cold start are cold, the rest warm.
	cold := 0
	for _, q := range res.Requests {
		if q.Cold {
			cold++
		}
	}
	assert.Equal(t, 3, cold, "up to K requests wait for one cold start")
}

// A cold start that fails: the request that waited for it fails with the
// reason, the others are served, the slice goes.
func TestFleetFailedColdStart(t *testing.T) {
	t.Parallel()
	w := &fleetWorld{coldStart: 10 * time.Millisecond, service: 5 * time.Millisecond, failStart: map[int]bool{2: true}}
	rep, err := w.fleet().Run(context.Background(), fleetOptions("per-request", 4, 1))
	require.NoError(t, err)
	w.allGone(t)
	res := rep.InstancesResult
	assert.Equal(t, 1, res.Failed)
	assert.Equal(t, 1, res.FailedStarts)
	assert.Equal(t, 3, rep.Completed)
	var failed []string
	for _, q := range res.Requests {
		if q.Error != "" {
			failed = append(failed, q.Error)
			assert.Nil(t, q.ResponseMs)
		}
	}
	require.Len(t, failed, 1)
	assert.Regexp(t, `^cold start failed: instance \d+: workload process died: exit status 2$`, failed[0])
	assert.True(t, slices.ContainsFunc(rep.Warnings, func(w report.Warning) bool {
		return w.Kind == report.KindFailedColdStarts && strings.HasPrefix(w.Text, "failed cold starts: 1 of 4")
	}), "%q", rep.Warnings)
}

// Shared, its one cold start failed: nothing is served, but the run is a
// result (completed 0) whose warnings say why, not an error that would
// abort a list.
func TestFleetNothingServed(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"shared", "pool:1"} {
		w := &fleetWorld{coldStart: 5 * time.Millisecond, service: 5 * time.Millisecond, failStart: map[int]bool{0: true}}
		rep, err := w.fleet().Run(context.Background(), fleetOptions(policy, 3, 4))
		require.NoError(t, err, policy)
		w.allGone(t)
		res := rep.InstancesResult
		assert.Equal(t, 0, rep.Completed, policy)
		assert.Equal(t, 3, rep.Offered, policy)
		assert.Equal(t, 3, res.Failed, policy)
		assert.Equal(t, 1, res.FailedStarts, policy)
		assert.Equal(t, 0, res.ColdStarts, policy)
		assert.Equal(t, report.LatencyMs{None: true}, rep.LatencyMs, "nothing served: no figure, null: %s", policy)
		assert.Zero(t, res.Bill.RequestMs, policy)
		h := strings.Join(report.Texts(rep.Warnings), "\n")
		assert.Contains(t, h, "nothing served: none of the 3 requests was served", policy)
		assert.Contains(t, h, "failed requests: 3 of 3 were not served (cold start failed: instance 0: workload process died: exit status 2)", policy)
		assert.Contains(t, h, "failed cold starts: 1 of 1", policy)
		assert.NotContains(t, h, "few requests", policy)
	}
}

// An instance that dies while serving fails its requests in flight.
func TestFleetCrash(t *testing.T) {
	t.Parallel()
	w := &fleetWorld{coldStart: 5 * time.Millisecond, service: 10 * time.Millisecond, crashAfter: map[int]int{0: 1}}
	rep, err := w.fleet().Run(context.Background(), fleetOptions("shared", 3, 1))
	require.NoError(t, err)
	w.allGone(t)
	res := rep.InstancesResult
	assert.Equal(t, 1, res.Failed)
	assert.Equal(t, 2, rep.Completed, "the queue went on to a new instance")
	assert.Equal(t, 2, res.InstancesStarted)
	assert.Zero(t, res.FailedStarts)
	assert.Contains(t, res.PerInstance[0].Failed, "signal: killed")
}

// An instance that dies before it is ever sampled: its CPU time comes
// from its slice's usage counter, read once it has ended; without one,
// cpu_ms sums the instances that are known, and a warning says so.
func TestFleetCPUOfAnInstanceThatDiedUnsampled(t *testing.T) {
	t.Parallel()
	// Shared, concurrency 1: instance 0 dies with its first request, and
	// instance 1 takes the rest and is retired (measured) at the end.
	run := func(usage time.Duration) *report.Latency {
		w := &fleetWorld{coldStart: 5 * time.Millisecond, service: 10 * time.Millisecond, crashAfter: map[int]int{0: 0}, usage: usage}
		f := w.fleet()
		// Instance 0 (pid 1000) is never read alive: it ends first.
		f.Local.PIDCPU = func(pid int) (time.Duration, error) {
			if pid == 1000 {
				return 0, errors.New("no such process")
			}
			return 30 * time.Millisecond, nil
		}
		rep, err := f.Run(context.Background(), fleetOptions("shared", 2, 1))
		require.NoError(t, err)
		w.allGone(t)
		require.Len(t, rep.InstancesResult.PerInstance, 2)
		return rep
	}
	rep := run(40 * time.Millisecond)
	require.NotNil(t, rep.CPUMs)
	assert.InDelta(t, 80, *rep.CPUMs, 1e-9, "each slice's usage, 40 ms, the most read")
	assert.NotContains(t, strings.Join(report.Texts(rep.Warnings), "\n"), "cpu partly unknown")

	rep = run(0)
	require.NotNil(t, rep.CPUMs, "the known instance's CPU, not null")
	assert.InDelta(t, 30, *rep.CPUMs, 1e-9, "the retired instance's process clock")
	assert.Nil(t, rep.InstancesResult.PerInstance[0].CPUMs)
	assert.Contains(t, strings.Join(report.Texts(rep.Warnings), "\n"), "cpu partly unknown: the CPU time of 1 of 2 instances could not be read")
}

// config.gomaxprocs is the value in force in the instances, as the first
// ready one reports it, not the one asked (0: the runtime's default).
func TestFleetGOMAXPROCSInForce(t *testing.T) {
	t.Parallel()
	w := &fleetWorld{coldStart: 5 * time.Millisecond, service: 5 * time.Millisecond, gomaxprocs: 7}
	o := fleetOptions("shared", 2, 2)
	o.Policy, o.Open.GOMAXPROCS = "", 0
	rep, err := w.fleet().Run(context.Background(), o)
	require.NoError(t, err)
	w.allGone(t)
	assert.Equal(t, 7, rep.Config.GOMAXPROCS)
}

// Keep-alive through the dispatcher's timer: an instance idle for the
// keep-alive is retired while the run waits for the next arrival, which
// then starts a new instance.
func TestFleetKeepAliveExpires(t *testing.T) {
	w := &fleetWorld{coldStart: 5 * time.Millisecond, service: 5 * time.Millisecond}
	o := fleetOptions("per-request", 0, 1)
	o.Open.Arrivals, o.Open.Rate, o.Open.Duration = runspec.ArrivalsFixed, 5, 400*time.Millisecond // at 0 and 200 ms
	o.Open.Instances.KeepAlive = 50 * time.Millisecond
	rep, err := w.fleet().Run(context.Background(), o)
	require.NoError(t, err)
	w.allGone(t)
	res := rep.InstancesResult
	assert.Equal(t, 2, rep.Completed)
	assert.Equal(t, 2, res.InstancesStarted, "the first retired before the second request came")
	assert.Equal(t, 1, res.PeakInstances)
	require.Len(t, res.PerInstance, 2)
	life := res.PerInstance[0].LifetimeMs
	assert.GreaterOrEqual(t, life, 5+5+50.0, "cold start, service, keep-alive")
	assert.Less(t, life, 190.0, "retired by the timer, not at the next arrival or the end")
	for i, q := range res.Requests {
		assert.True(t, q.Cold, "request %d", i)
	}
}

// A send that fails (the instance's pipe broke): the instance is killed,
// its request fails with the reason, and the run goes on.
func TestFleetSendFails(t *testing.T) {
	t.Parallel()
	w := &fleetWorld{coldStart: 5 * time.Millisecond, service: 5 * time.Millisecond, sendFail: map[int]bool{0: true}}
	rep, err := w.fleet().Run(context.Background(), fleetOptions("per-request", 2, 1))
	require.NoError(t, err)
	w.allGone(t)
	res := rep.InstancesResult
	assert.Equal(t, 1, rep.Completed)
	assert.Equal(t, 1, res.Failed)
	var reasons []string
	for _, q := range res.Requests {
		if q.Error != "" {
			reasons = append(reasons, q.Error)
		}
	}
	require.Len(t, reasons, 1)
	assert.Regexp(t, `^instance \d+: broken pipe$`, reasons[0])
	assert.True(t, slices.ContainsFunc(res.PerInstance, func(in report.InstanceRow) bool { return strings.HasSuffix(in.Failed, "broken pipe") }))
	assert.Zero(t, res.FailedStarts, "it was ready")
}

// A reply to a request the instance was not serving: the instance is
// killed and what it held fails; the others are served.
func TestFleetBadReply(t *testing.T) {
	t.Parallel()
	w := &fleetWorld{coldStart: 5 * time.Millisecond, service: 5 * time.Millisecond, badReply: map[int]bool{1: true}}
	rep, err := w.fleet().Run(context.Background(), fleetOptions("per-request", 3, 1))
	require.NoError(t, err)
	w.allGone(t)
	res := rep.InstancesResult
	assert.Equal(t, 2, rep.Completed)
	assert.Equal(t, 1, res.Failed)
	for _, q := range res.Requests {
		if q.Error != "" {
			assert.Regexp(t, `^instance \d+ replied to request 10\d\d, which it was not serving$`, q.Error)
			assert.Nil(t, q.ResponseMs)
		}
	}
}

// Cancelled while instances start and serve: every slice goes, every
// instance ends, and the error is the context's.
func TestFleetCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &fleetWorld{coldStart: 5 * time.Millisecond, service: time.Hour, onReady: cancel}
	_, err := w.fleet().Run(ctx, fleetOptions("per-request", 6, 1))
	assert.ErrorIs(t, err, context.Canceled)
	w.allGone(t)
	assert.NotEmpty(t, w.Created())
}

// A slice the kernel refuses stops the run (a list skips it): nothing of
// it is left.
func TestFleetSliceRefused(t *testing.T) {
	t.Parallel()
	w := &fleetWorld{coldStart: 50 * time.Millisecond, service: 5 * time.Millisecond, createErr: cgroup.ErrLimitsRefused}
	_, err := w.fleet().Run(context.Background(), fleetOptions("per-request", 3, 1))
	assert.ErrorIs(t, err, cgroup.ErrLimitsRefused)
	w.allGone(t)
	assert.Len(t, w.Created(), 1)
}

// Instances never run in the current cgroup.
func TestFleetRefusesCurrent(t *testing.T) {
	t.Parallel()
	w := &fleetWorld{}
	o := fleetOptions("shared", 1, 1)
	o.Mode = runner.ModeCurrent
	_, err := w.fleet().Run(context.Background(), o)
	assert.ErrorIs(t, err, ErrInstancesNeedSlices)
	assert.Empty(t, w.Created())
}

// Keep-alive 0 on steady arrivals: every request a new instance, each
// retired (its slice removed) as soon as it has replied.
func TestFleetKeepAliveZero(t *testing.T) {
	w := &fleetWorld{coldStart: 5 * time.Millisecond, service: 5 * time.Millisecond}
	o := fleetOptions("per-request", 0, 1)
	o.Open.Arrivals, o.Open.Rate, o.Open.Duration = runspec.ArrivalsFixed, 20, 200*time.Millisecond
	o.Open.Instances.KeepAlive = 0
	rep, err := w.fleet().Run(context.Background(), o)
	require.NoError(t, err)
	w.allGone(t)
	assert.Equal(t, 4, rep.Completed)
	res := rep.InstancesResult
	assert.Equal(t, 4, res.InstancesStarted)
	require.Len(t, res.PerInstance, 4)
	// One at a time, unless an instance's cold start and reply outlasted
	// the 50 ms to the next arrival: a stalled goroutine on a loaded host
	// (2 of 30 runs under -race here) makes two live at once for real.
	overlapped := false
	for _, in := range res.PerInstance {
		assert.Equal(t, 1, in.Served, "keep-alive 0: an instance serves one request")
		overlapped = overlapped || in.LifetimeMs >= 50
	}
	if !overlapped {
		assert.Equal(t, 1, res.PeakInstances)
	} else {
		assert.LessOrEqual(t, res.PeakInstances, 2)
	}
}

// An instance that does not end once retired is killed after ExitWait, and
// the result says so: nothing is printed.
func TestFleetKillsLingeringInstances(t *testing.T) {
	t.Parallel()
	w := &fleetWorld{lingers: true}
	f := w.fleet()
	f.ExitWait = 20 * time.Millisecond
	rep, err := f.Run(context.Background(), fleetOptions("shared", 2, 1))
	require.NoError(t, err)
	w.allGone(t)
	assert.Contains(t, rep.Warnings, report.Warning{Kind: report.KindKilled, Text: "instances still running 20ms after they were retired: killed"})
}
