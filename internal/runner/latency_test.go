package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner/runnertest"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// Local.Latency on the fakes of local_test.go (world: runnertest.Kernel,
// fakeChild), with the open loop's seams: an OpenChild, the pid's CPU clock
// and the sampler's clock.

// stalledClock is a sampler clock whose first instant never comes: the
// sampler reads nothing until it is stopped, so the order of the run's own
// reads is all the log shows (and the world's log is only written from the
// test's goroutine).
type stalledClock struct{}

func (stalledClock) Now() time.Duration { return 0 }

func (stalledClock) SleepUntil(ctx context.Context, _ time.Duration) error {
	<-ctx.Done()
	return ctx.Err()
}

// countingClock is a stalledClock that counts the samplers waiting on it:
// one left waiting after a run returns is a sampler nobody stopped.
type countingClock struct {
	stalledClock
	mu      sync.Mutex
	waiting int
	started int
	start   chan struct{} // closed (and dropped) when a sampler starts waiting: waitStarted's wake-up
}

func (c *countingClock) SleepUntil(ctx context.Context, t time.Duration) error {
	c.mu.Lock()
	c.waiting++
	c.started++
	if c.start != nil {
		close(c.start)
		c.start = nil
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.waiting--
		c.mu.Unlock()
	}()
	return c.stalledClock.SleepUntil(ctx, t)
}

func (c *countingClock) counts() (waiting, started int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waiting, c.started
}

// waitStarted waits until n samplers have asked for an instant (a sampler
// starts in its own goroutine), and fails the test if they have not within
// 5 s.
func (c *countingClock) waitStarted(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		c.mu.Lock()
		started := c.started
		if started >= n {
			c.mu.Unlock()
			return
		}
		if c.start == nil {
			c.start = make(chan struct{})
		}
		woken := c.start
		c.mu.Unlock()
		select {
		case <-woken:
		case <-timeout:
			t.Fatalf("waited 5s for %d sampler(s) to ask the clock for an instant; %d did", n, started)
		}
	}
}

// scriptedClock is a sampler clock in fake time: each SleepUntil up to end
// jumps there at once; the first one past end closes exhausted and waits
// for the sampler to be stopped. asked records the instants the sampler
// asked for.
type scriptedClock struct {
	mu        sync.Mutex
	now, end  time.Duration
	asked     []time.Duration
	exhausted chan struct{}
	once      sync.Once
}

func newScriptedClock(end time.Duration) *scriptedClock {
	return &scriptedClock{end: end, exhausted: make(chan struct{})}
}

func (c *scriptedClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *scriptedClock) SleepUntil(ctx context.Context, t time.Duration) error {
	c.mu.Lock()
	c.asked = append(c.asked, t)
	if t <= c.end {
		c.now = max(c.now, t)
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	c.once.Do(func() { close(c.exhausted) })
	<-ctx.Done()
	return ctx.Err()
}

func (c *scriptedClock) instants() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.asked)
}

// counterAt is a usage counter that reads table at the clock's now.
func counterAt(c *scriptedClock, table map[time.Duration]time.Duration) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		u, ok := table[c.Now()]
		if !ok {
			return 0, fmt.Errorf("no usage scripted at %v", c.Now())
		}
		return u, nil
	}
}

// waitExhausted blocks until the sampler has taken every scripted sample.
func (c *scriptedClock) waitExhausted(t *testing.T) {
	t.Helper()
	select {
	case <-c.exhausted:
	case <-time.After(5 * time.Second):
		t.Error("the sampler never took its scripted samples")
	}
}

// samplePeak's peak is the most CPU in any whole 100 ms interval: usage
// 0, 50, 150, 160 ms at 0, 100, 200, 300 ms is 0.5, 1.0 and 0.1 CPUs.
func TestSamplePeak(t *testing.T) {
	t.Parallel()
	clk := newScriptedClock(300 * time.Millisecond)
	ms := time.Millisecond
	stop := samplePeak(context.Background(), clk, counterAt(clk, map[time.Duration]time.Duration{
		0: 0, 100 * ms: 50 * ms, 200 * ms: 150 * ms, 300 * ms: 160 * ms,
	}))
	clk.waitExhausted(t)
	peak, cpus := stop()
	require.NotNil(t, peak)
	assert.InDelta(t, 1.0, *peak, 1e-12)
	assert.InDeltaSlice(t, []float64{0.5, 1.0, 0.1}, cpus, 1e-12, "each whole interval's use")
	assert.Equal(t, []time.Duration{0, 100 * ms, 200 * ms, 300 * ms, 400 * ms}, clk.instants(),
		"read on absolute instants usage.PeakInterval apart")
	assert.Equal(t, 100*time.Millisecond, usage.PeakInterval)
	again, _ := stop()
	assert.Same(t, peak, again, "stop may be called again, with the same answer")
}

// A burst above a CPU shows as more than 1: the counter is the workload's
// CPU time, summed over its threads.
func TestSamplePeakAboveOneCPU(t *testing.T) {
	t.Parallel()
	clk := newScriptedClock(200 * time.Millisecond)
	ms := time.Millisecond
	stop := samplePeak(context.Background(), clk, counterAt(clk, map[time.Duration]time.Duration{
		0: 10 * ms, 100 * ms: 40 * ms, 200 * ms: 290 * ms,
	}))
	clk.waitExhausted(t)
	peak, _ := stop()
	require.NotNil(t, peak)
	assert.InDelta(t, 2.5, *peak, 1e-12)
}

// No whole interval, no peak: stopped before the second sample, or with
// no sample at all.
func TestSamplePeakWithoutAnInterval(t *testing.T) {
	t.Parallel()
	clk := newScriptedClock(0) // one sample, at 0
	stop := samplePeak(context.Background(), clk, counterAt(clk, map[time.Duration]time.Duration{0: 0}))
	clk.waitExhausted(t)
	peak, cpus := stop()
	assert.Nil(t, peak)
	assert.Empty(t, cpus)

	stop = samplePeak(context.Background(), stalledClock{}, func() (time.Duration, error) {
		t.Error("read without an instant having come")
		return 0, nil
	})
	peak, _ = stop()
	assert.Nil(t, peak)
	peak, _ = stop()
	assert.Nil(t, peak)
}

// A counter that fails (the child has exited) ends the sampling; the
// intervals read before it still count.
func TestSamplePeakKeepsWhatWasReadBeforeAnError(t *testing.T) {
	t.Parallel()
	clk := newScriptedClock(time.Second)
	ms := time.Millisecond
	// Nothing scripted at 200 ms: the third read fails.
	scripted := counterAt(clk, map[time.Duration]time.Duration{0: 0, 100 * ms: 30 * ms})
	failed := make(chan struct{})
	var once sync.Once
	counter := func() (time.Duration, error) {
		u, err := scripted()
		if err != nil {
			once.Do(func() { close(failed) })
		}
		return u, err
	}
	stop := samplePeak(context.Background(), clk, counter)
	select {
	case <-failed:
	case <-time.After(5 * time.Second):
		t.Fatalf("waited 5s for the sampler's failing read at 200ms; the clock is at %v", clk.Now())
	}
	peak, cpus := stop()
	require.NotNil(t, peak)
	assert.InDelta(t, 0.3, *peak, 1e-12)
	assert.InDeltaSlice(t, []float64{0.3}, cpus, 1e-12)
}

// The run's context ending stops the sampler too; stop still answers.
func TestSamplePeakStopsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	stop := samplePeak(ctx, stalledClock{}, func() (time.Duration, error) { return 0, nil })
	cancel()
	done := make(chan *float64)
	go func() {
		peak, _ := stop()
		done <- peak
	}()
	select {
	case p := <-done:
		assert.Nil(t, p)
	case <-time.After(5 * time.Second):
		t.Fatal("stop hangs")
	}
}

// fakeOpenChild is fakeChild with the open loop's result; before runs
// before WaitLatency answers (a wait for the sampler, say).
type fakeOpenChild struct {
	fakeChild
	res    bench.LatencyResult
	before func()
}

func (c fakeOpenChild) WaitLatency(ctx context.Context) (bench.LatencyResult, error) {
	if err := c.w.Step("wait latency"); err != nil {
		return bench.LatencyResult{}, err
	}
	if c.before != nil {
		c.before()
	}
	return c.res, ctx.Err()
}

// openResult is 2000 requests over 10 s, 10 of them dropped.
var openResult = bench.LatencyResult{
	Offered: 2000, Completed: 1990, Dropped: 10, Elapsed: 10 * time.Second,
	Mean: 3 * time.Millisecond, Min: time.Millisecond, P50: 2 * time.Millisecond, P90: 5 * time.Millisecond,
	P99: 20 * time.Millisecond, P999: 40 * time.Millisecond, Max: 50 * time.Millisecond,
	GOMAXPROCS: 2, Late: time.Millisecond, WorkerCPU: []time.Duration{80 * time.Millisecond, 80 * time.Millisecond},
	ProcessCPU: 260 * time.Millisecond,
}

func openOptions(mode string) Options {
	o := options(mode)
	o.Open = runspec.OpenLoop{Rate: 200, Arrivals: runspec.ArrivalsPoisson, Work: 2 * time.Millisecond, Workers: 2,
		Queue: 50, Duration: 10 * time.Second, Seed: 7, GOMAXPROCS: 2}
	o.Policy = "workers"
	return o
}

// latencyWorld is a world with the open loop's seams. By default the
// sampler's clock is stalled and PIDCPU logs its reads; started records
// what StartOpen was given.
type latencyWorld struct {
	*world
	clock   usage.Clock
	pidCPU  func(pid int) (time.Duration, error)
	before  func()
	res     bench.LatencyResult
	started []runspec.OpenLoop
}

func newLatencyWorld(w *world) *latencyWorld {
	lw := &latencyWorld{world: w, clock: stalledClock{}, res: openResult}
	lw.pidCPU = func(pid int) (time.Duration, error) {
		return 100 * time.Millisecond, w.Step(fmt.Sprintf("pid cpu %d", pid))
	}
	return lw
}

func (lw *latencyWorld) local() *Local {
	l := lw.world.local()
	l.Open.StartOpen = func(exe string, o runspec.OpenLoop, _ io.Writer) (OpenChild, error) {
		lw.started = append(lw.started, o)
		if err := lw.Step("start open " + exe); err != nil {
			return nil, err
		}
		return fakeOpenChild{fakeChild: fakeChild{lw.world}, res: lw.res, before: lw.before}, nil
	}
	l.Open.RunOpenHere = func(ctx context.Context, o runspec.OpenLoop, beforeStart func() error) (bench.LatencyResult, error) {
		lw.started = append(lw.started, o)
		if err := lw.Step("warm here"); err != nil {
			return bench.LatencyResult{}, err
		}
		if err := beforeStart(); err != nil {
			return bench.LatencyResult{}, err
		}
		if err := lw.Step("measure here"); err != nil {
			return bench.LatencyResult{}, err
		}
		return lw.res, ctx.Err()
	}
	l.PIDCPU = func(pid int) (time.Duration, error) { return lw.pidCPU(pid) }
	l.SampleClock = func() usage.Clock { return lw.clock }
	return l
}

// The whole sequence of a created slice: the child is inside the slice
// before it is let go, the slice's cpu.stat frames the requests (read
// before Measure, after WaitLatency), the workload's CPU clock is read
// once it is calibrated and before the first request, and the child is
// gone before the slice is removed, the default parent last.
func TestLatencyCreatedOrder(t *testing.T) {
	t.Parallel()
	w := &world{Kernel: runnertest.Kernel{Removed: []string{"/fake/cpu/throttlebench/tb-1-2-deadbeef"}, Stats: []uint64{10, 25}}}
	lw := newLatencyWorld(w)
	o := openOptions(ModeCreate)
	rep, err := lw.local().Latency(context.Background(), o)
	require.NoError(t, err)

	// The child's CPU clock is read from outside once, at the start: by
	// the end the child has exited, and its result says its CPU time.
	assert.Equal(t, []string{
		"hierarchy", "clean /fake/cpu/throttlebench", "create", "limits", "chain", "cpuset",
		"start open /bin/tb", "move 4242", "go", "warm",
		"stat", "host cpu", "pid cpu 4242", "measure", "wait latency", "host cpu", "stat",
		"kill", "delete", "remove parent",
	}, w.Log())
	assert.Equal(t, cgroup.SliceSpec{Parent: "/fake/cpu/throttlebench", CreateParent: true, Limits: o.Limits}, w.Spec())
	assert.Equal(t, []runspec.OpenLoop{o.Open}, lw.started, "the child runs the open loop it was given")

	assert.Equal(t, "created", rep.Cgroup.Mode)
	assert.Equal(t, "/fake/cpu/throttlebench/tb-fake", rep.Cgroup.Dir)
	assert.Equal(t, int64(20_000), rep.Cgroup.QuotaUs, "the limits read back, not the 10 ms asked for")
	require.NotNil(t, rep.Throttling.NrPeriods)
	assert.Equal(t, uint64(15), *rep.Throttling.NrPeriods, "cpu.stat after minus before")
	assert.Equal(t, "fake", rep.Host.Kernel)
	assert.Equal(t, 200.0, rep.Config.Rate)
	assert.Equal(t, runspec.ArrivalsPoisson, rep.Config.Arrivals)
	assert.Equal(t, 2.0, rep.Config.WorkMs)
	assert.Equal(t, 2, rep.Config.Workers)
	assert.Equal(t, 50, rep.Config.Queue)
	assert.Equal(t, uint64(7), rep.Config.Seed)
	assert.Equal(t, "workers", rep.Config.GOMAXPROCSPolicy)
	assert.Equal(t, 2, rep.Config.GOMAXPROCS, "the value in force, from the result")
	assert.Equal(t, 1990, rep.Completed)
	assert.Equal(t, 10, rep.Dropped)
	assert.Equal(t, 20.0, rep.LatencyMs.P99)
	assert.Nil(t, rep.PeakCPUs100ms, "the sampler never read")
	assert.True(t, report.HasKind(rep.Warnings, report.KindNoPeak))
	// usage is the child's CPU time, as cpu_ms: 260 ms at its end − 100 ms
	// at the start, against 20 ms × 15 periods.
	require.NotNil(t, rep.Usage.CPUMs)
	assert.Equal(t, *rep.CPUMs, *rep.Usage.CPUMs)
	assert.InDelta(t, 160, *rep.Usage.CPUMs, 1e-9)
	assert.Equal(t, "process", *rep.Usage.Source)
	require.NotNil(t, rep.Usage.QuotaUtilisation)
	assert.InDelta(t, 160.0/(20*15), *rep.Usage.QuotaUtilisation, 1e-12)
}

// What the runner itself fills in: the workload's CPU time over the
// window (its pid's CPU clock at the start, 100 ms, to the 300 ms its
// result says it had used at the end), the window, the utilisation of the
// limit in it (20 ms per 100 ms, read back: 0.2 CPUs), and the 100 ms peak
// from the sampler reading the pid's clock (0.5, 1.0 and 0.1 CPUs).
func TestLatencyReportFields(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	clk := newScriptedClock(300 * ms)
	cpuAt := counterAt(clk, map[time.Duration]time.Duration{0: 100 * ms, 100 * ms: 150 * ms, 200 * ms: 250 * ms, 300 * ms: 260 * ms})
	w := &world{Kernel: runnertest.Kernel{Stats: []uint64{10, 25}}}
	lw := newLatencyWorld(w)
	lw.clock = clk
	var pids []int
	var mu sync.Mutex
	lw.pidCPU = func(pid int) (time.Duration, error) {
		mu.Lock()
		pids = append(pids, pid)
		mu.Unlock()
		return cpuAt()
	}
	lw.before = func() { clk.waitExhausted(t) }
	lw.res.ProcessCPU = 300 * ms // what the child says at its end

	began := time.Now()
	rep, err := lw.local().Latency(context.Background(), openOptions(ModeCreate))
	took := time.Since(began)
	require.NoError(t, err)

	require.NotNil(t, rep.CPUMs)
	assert.InDelta(t, 200, *rep.CPUMs, 1e-9, "300 ms at the end − 100 ms at the start")
	assert.Greater(t, rep.WindowMs, 0.0)
	assert.LessOrEqual(t, rep.WindowMs, float64(took)/float64(ms), "the window lies inside the run")
	assert.InDelta(t, 0.2, rep.Cgroup.EffectiveCPUs, 1e-12)
	require.NotNil(t, rep.CPUUtilisation)
	assert.InEpsilon(t, 200/(rep.WindowMs*0.2), *rep.CPUUtilisation, 1e-9, "cpu / (window × effective CPUs)")
	require.NotNil(t, rep.PeakCPUs100ms)
	assert.InDelta(t, 1.0, *rep.PeakCPUs100ms, 1e-12)
	assert.False(t, report.HasKind(rep.Warnings, report.KindNoPeak))
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, pids)
	for _, p := range pids {
		assert.Equal(t, fakePid, p, "the workload's pid, never ours")
	}
}

// A CPU clock that cannot be read leaves the CPU time and the utilisation
// unknown (null), and the peak with them; it never fails the run.
func TestLatencyWithoutTheWorkloadsCPUTime(t *testing.T) {
	t.Parallel()
	w := &world{}
	lw := newLatencyWorld(w)
	lw.pidCPU = func(int) (time.Duration, error) { return 0, errors.New("no such process") }
	rep, err := lw.local().Latency(context.Background(), openOptions(ModeCreate))
	require.NoError(t, err)
	assert.Nil(t, rep.CPUMs)
	assert.Nil(t, rep.CPUUtilisation)
	assert.Nil(t, rep.PeakCPUs100ms)
	assert.Equal(t, []string{"kill", "delete", "remove parent"}, w.Log()[len(w.Log())-3:])
}

// A child that reports no CPU time leaves the CPU time and the utilisation
// unknown; the run stands.
func TestLatencyWithoutTheChildsCPUTime(t *testing.T) {
	t.Parallel()
	w := &world{}
	lw := newLatencyWorld(w)
	lw.res.ProcessCPU = 0
	rep, err := lw.local().Latency(context.Background(), openOptions(ModeCreate))
	require.NoError(t, err)
	assert.Nil(t, rep.CPUMs)
	assert.Nil(t, rep.CPUUtilisation)
	assert.Equal(t, 1990, rep.Completed)
}

// Whichever step fails, the child that was started is killed and the
// slice that was created is deleted, and the step's error comes back.
func TestLatencyEveryFailureCleansUp(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, tc := range []struct {
		step    string
		created bool // the slice exists when the step fails
		started bool // so does the child
	}{
		{step: "create"},
		{step: "limits", created: true},
		{step: "chain", created: true},
		{step: "start open /bin/tb", created: true},
		{step: "move 4242", created: true, started: true},
		{step: "go", created: true, started: true},
		{step: "warm", created: true, started: true},
		{step: "stat", created: true, started: true},
		{step: "measure", created: true, started: true},
		{step: "wait latency", created: true, started: true},
	} {
		t.Run(tc.step, func(t *testing.T) {
			w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{tc.step: boom}}}
			lw := newLatencyWorld(w)
			clk := &countingClock{}
			lw.clock = clk
			if tc.step == "measure" || tc.step == "wait latency" {
				// The sampler runs by then: wait for it to ask for its
				// first instant, so that an unstopped one shows.
				w.On = map[string]func(){tc.step: func() { clk.waitStarted(t, 1) }}
			}
			rep, err := lw.local().Latency(context.Background(), openOptions(ModeCreate))
			require.ErrorIs(t, err, boom)
			assert.Nil(t, rep)
			assertCleanedUp(t, w.Log(), tc.created, tc.started)
			waiting, _ := clk.counts()
			assert.Zero(t, waiting, "the sampler is stopped on every path")
			assert.Equal(t, 1, count(w.Log(), tc.step), "the run stops at the failing step")
			if i := slices.Index(w.Log(), tc.step); tc.step != "create" && i >= 0 {
				assert.NotContains(t, w.Log()[i+1:], "measure", "nothing goes on after %s", tc.step)
			}
		})
	}
	// cpu.stat that cannot be read after the requests fails the run too.
	t.Run("stat after", func(t *testing.T) {
		w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{}}}
		w.On = map[string]func(){"wait latency": func() { w.Fail["stat"] = boom }}
		rep, err := newLatencyWorld(w).local().Latency(context.Background(), openOptions(ModeCreate))
		require.ErrorIs(t, err, boom)
		assert.Nil(t, rep)
		assert.Equal(t, 2, count(w.Log(), "stat"))
		assertCleanedUp(t, w.Log(), true, true)
	})
}

// A run cancelled before its slice exists creates nothing; one cancelled
// while the requests run ends the child and removes the slice.
func TestLatencyCancelled(t *testing.T) {
	t.Parallel()
	t.Run("before create", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		w := &world{}
		_, err := newLatencyWorld(w).local().Latency(ctx, openOptions(ModeCreate))
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, []string{"hierarchy", "clean /fake/cpu/throttlebench"}, w.Log())
	})
	t.Run("during the requests", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := &world{Kernel: runnertest.Kernel{On: map[string]func(){"wait latency": cancel}}}
		_, err := newLatencyWorld(w).local().Latency(ctx, openOptions(ModeCreate))
		require.ErrorIs(t, err, context.Canceled)
		assertCleanedUp(t, w.Log(), true, true)
	})
}

// No right to create a slice: the same policy as Run.
func TestLatencyPermissionDenied(t *testing.T) {
	t.Parallel()
	denied := fmt.Errorf("%w: mkdir: permission denied", cgroup.ErrPermission)
	w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{"create": denied}}}
	_, err := newLatencyWorld(w).local().Latency(context.Background(), openOptions(ModeCreate))
	require.ErrorIs(t, err, ErrNeedsPrivilege)
	assert.Equal(t, []string{"create", "remove parent"}, w.Log()[len(w.Log())-2:], "nothing runs after the refusal but the default parent's removal")

	w = &world{Kernel: runnertest.Kernel{Fail: map[string]error{"create": denied}}}
	o := openOptions(ModeAuto)
	rep, err := newLatencyWorld(w).local().Latency(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, "current", rep.Cgroup.Mode)
	assert.Contains(t, rep.Warnings, report.Warning{Kind: report.KindCurrentCgroup, Text: "ran in the current cgroup: cannot create a slice under /fake/cpu/throttlebench (" + denied.Error() + ")"})
	assert.NotContains(t, w.Log(), "delete", "nothing was created")
	assert.NotContains(t, w.Log(), "start open /bin/tb")
}

// Current mode runs the open loop in this process: the cgroup's cpu.stat
// and the readings for the warnings frame the requests, after the
// calibration; the workload's CPU time is the cgroup's usage.
// --gomaxprocs floor and ceil reach the open loop computed from the quota
// read back (20 ms per 100 ms: floor 1; ceil 2 of 4 CPUs), created or
// current, as they reach the closed loop.
func TestLatencyGOMAXPROCSRuleFromTheQuota(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{ModeCreate, ModeCurrent} {
		for rule, want := range map[string]int{runspec.RuleFloor: 1, runspec.RuleCeil: 2} {
			w := &world{Kernel: runnertest.Kernel{Removed: []string{"/fake/cpu/throttlebench/tb-1-2-deadbeef"}, Stats: []uint64{10, 25}}}
			lw := newLatencyWorld(w)
			o := openOptions(mode)
			o.Policy, o.Open.GOMAXPROCS, o.CPUs = rule, 0, []int{0, 1, 2, 3}
			_, err := lw.local().Latency(context.Background(), o)
			require.NoError(t, err, "%s %s", mode, rule)
			require.Len(t, lw.started, 1)
			assert.Equal(t, want, lw.started[0].GOMAXPROCS, "%s %s", mode, rule)
		}
	}
}

func TestLatencyCurrentOrder(t *testing.T) {
	t.Parallel()
	w := &world{Kernel: runnertest.Kernel{Stats: []uint64{3, 7}}}
	lw := newLatencyWorld(w)
	o := openOptions(ModeCurrent)
	rep, err := lw.local().Latency(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"self", "limits", "chain", "usage", "warm here",
		"stat", "host cpu", "usage", "process cpu", "usage", "measure here",
		"usage", "host cpu", "usage", "process cpu", "stat",
	}, w.Log())
	assert.NotContains(t, w.Log(), "create")
	assert.NotContains(t, w.Log(), "pid cpu 4242")
	assert.Equal(t, []runspec.OpenLoop{o.Open}, lw.started)
	assert.Equal(t, "current", rep.Cgroup.Mode)
	assert.Equal(t, "/user.slice", rep.Cgroup.Path)
	require.NotNil(t, rep.Throttling.NrPeriods)
	assert.Equal(t, uint64(4), *rep.Throttling.NrPeriods)
	require.NotNil(t, rep.CPUMs, "the cgroup's usage is known")
	require.NotNil(t, rep.Usage.Source)
	assert.Equal(t, "cgroup", *rep.Usage.Source)
}

// Without the cgroup's usage, current mode counts this process's CPU time.
func TestLatencyCurrentWithoutUsage(t *testing.T) {
	t.Parallel()
	w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{"usage": cgroup.ErrNoUsage}}}
	rep, err := newLatencyWorld(w).local().Latency(context.Background(), openOptions(ModeCurrent))
	require.NoError(t, err)
	i := slices.Index(w.Log(), "measure here")
	require.Positive(t, i)
	assert.Equal(t, "process cpu", w.Log()[i-1], "the start read from this process: %v", w.Log())
	assert.Equal(t, "process cpu", w.Log()[i+1], "and the end: %v", w.Log())
	require.NotNil(t, rep.CPUMs)
	require.NotNil(t, rep.Usage.Source)
	assert.Equal(t, "process", *rep.Usage.Source)
}

// In current mode a failure before the requests (the cgroup's cpu.stat)
// or of the open loop itself comes back, and nothing runs after it.
func TestLatencyCurrentFailures(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, step := range []string{"stat", "warm here", "measure here"} {
		t.Run(step, func(t *testing.T) {
			w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{step: boom}}}
			lw := newLatencyWorld(w)
			clk := &countingClock{}
			lw.clock = clk
			if step == "measure here" {
				w.On = map[string]func(){step: func() { clk.waitStarted(t, 1) }}
			}
			rep, err := lw.local().Latency(context.Background(), openOptions(ModeCurrent))
			require.ErrorIs(t, err, boom)
			assert.Nil(t, rep)
			assert.Equal(t, step, w.Log()[len(w.Log())-1], "log %v", w.Log())
			waiting, _ := clk.counts()
			assert.Zero(t, waiting, "the sampler is stopped on every path")
		})
	}
	w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{"self": boom}}}
	_, err := newLatencyWorld(w).local().Latency(context.Background(), openOptions(ModeCurrent))
	require.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "find the current cgroup")
}
