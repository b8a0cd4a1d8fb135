//go:build linux

package bench

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/bench/workload"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Where each worker ran, on the real host: every sample's CPUs are CPUs
// this process may run on, its counts agree with each other, and the slow
// worker's sleeps show as voluntary context switches.
func TestPlacementOnTheHost(t *testing.T) {
	const batch, every = 20, 5
	cfg := runspec.ClosedLoop{Workload: "spin", Params: report.Params{}.With("units", 1), Batch: batch, Iterations: 3, Workers: 2, GOMAXPROCS: 2,
		Sleep: 2 * time.Millisecond, SleepEvery: every, SlowWorkers: 1}
	res, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)

	var allowed unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &allowed))
	var sched schedFile
	_, kernel := sched.migrations()
	for i, it := range res.Iterations {
		for id, w := range it.Workers {
			assert.Equal(t, batch, w.Ops, "iteration %d worker %d", i, id)
			require.NotEmpty(t, w.CPUs, "iteration %d worker %d ran somewhere", i, id)
			assert.LessOrEqual(t, len(w.CPUs), runtime.NumCPU())
			for _, c := range w.CPUs {
				assert.True(t, allowed.IsSet(c), "CPU %d is not one this process may use", c)
			}
			assert.GreaterOrEqual(t, w.CPUChanges, uint64(len(w.CPUs)-1), "k CPUs take k−1 moves at least")
			assert.Equal(t, kernel, w.KernelMigrations, "the kernel's count where the file is")
			if w.KernelMigrations {
				assert.GreaterOrEqual(t, w.Migrations, w.CPUChanges, "the kernel sees every move the samples see")
			}
		}
		// The slow worker sleeps after every 5th operation: 4 times a batch
		// of 20 (the count runs on across iterations; there is no warm-up),
		// each sleep a voluntary switch at least.
		assert.GreaterOrEqual(t, it.Workers[0].CtxVoluntary, uint64(batch/every), "iteration %d", i)
	}
}

// The kernel's migration count is read on this host (CONFIG_SCHED_DEBUG);
// where the file is missing, the test says so instead of failing.
func TestThreadMigrationsReadsTheKernel(t *testing.T) {
	if _, err := os.Stat("/proc/thread-self/sched"); err != nil {
		t.Skipf("no per-thread sched file here (kernel without CONFIG_SCHED_DEBUG?): %v", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var sched schedFile
	n0, ok := sched.migrations()
	require.True(t, ok)
	// Moved to every CPU in turn, the thread migrates each time: the
	// count read through the same buffer follows.
	var allowed unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &allowed))
	defer unix.SchedSetaffinity(0, &allowed)
	moves := 0
	for c := range runtime.NumCPU() {
		if !allowed.IsSet(c) {
			continue
		}
		var one unix.CPUSet
		one.Set(c)
		require.NoError(t, unix.SchedSetaffinity(0, &one))
		moves++
	}
	n1, ok := sched.migrations()
	require.True(t, ok)
	assert.GreaterOrEqual(t, n1, n0+uint64(moves-1), "a move to each of %d CPUs but the one it was on", moves)
}

// The raw clocks agree with the kernel's other view of the same time: a
// thread's CPU clock grows as the scheduler's run time of that thread in
// /proc/thread-self/schedstat does, never faster than the wall clock, and
// the process's by at least as much. Spinning for 30 ms of wall time gave
// the thread as little as 5 ms of CPU on a busy host (CI's packages run
// side by side), so the CPU it got is compared with what the kernel
// counted, not with the 30 ms.
func TestRawClocks(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s0, schedOK := schedRun(t)
	w0 := time.Now()
	c0, p0, u0 := threadCPU(), processCPU(), threadUsage()
	for deadline := w0.Add(30 * time.Millisecond); time.Now().Before(deadline); {
	}
	c, p := threadCPU()-c0, processCPU()-p0
	wall := time.Since(w0)
	s1, _ := schedRun(t)
	assert.Positive(t, c, "the thread's clock grows while it spins")
	assert.LessOrEqual(t, c, wall, "a thread's CPU time never outgrows the wall clock")
	if schedOK {
		// The schedstat reads bracket the clock reads, but schedstat is
		// the run time as of the scheduler's last update of this thread
		// (a tick at most: 4 ms at this host's HZ 250), where the clock
		// brings it up to date. 0.28 ms apart at most in 400 runs here,
		// quiet and beside two busy loops (the thread got 10 to 30 ms of
		// its 30), then 1.02 ms once beside other builds: 5 ms.
		assert.InDelta(t, float64(s1-s0), float64(c), float64(5*time.Millisecond), "the clock against the scheduler's run time")
	}
	assert.GreaterOrEqual(t, p, c, "the process's clock counts this thread's")
	assert.GreaterOrEqual(t, threadUsage().involuntary, u0.involuntary, "counters never go back")
	assert.Equal(t, unix.Gettid(), gettid())
}

// schedRun is this thread's time on a CPU as the scheduler keeps it (the
// first field of /proc/thread-self/schedstat, ns); false where the kernel
// has no schedstat (CONFIG_SCHED_INFO off).
func schedRun(t *testing.T) (time.Duration, bool) {
	data, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	require.NotEmpty(t, f, "schedstat: %q", data)
	ns, err := strconv.ParseInt(f[0], 10, 64)
	require.NoError(t, err, "schedstat: %q", data)
	return time.Duration(ns), true
}

// The workload child's lone worker runs unlocked on a thread that is its
// own all the same: over batches long enough for the Go scheduler to
// preempt it (every 10 ms), it never changes threads and its thread's
// clock measures the work.
func TestLoneWorkerKeepsItsThread(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cfg := runspec.ClosedLoop{Workload: "spin", Params: report.Params{}.With("units", 500), Batch: 60, Iterations: 4, Warmup: 1, Workers: 1, GOMAXPROCS: 1}
	res, err := RunAlone(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Zero(t, res.ThreadMoves)
	for i, it := range res.Iterations {
		w := it.Workers[0]
		assert.Equal(t, 60, w.Ops)
		assert.Greater(t, w.CPU, 20*time.Millisecond, "iteration %d: a batch long enough to be preempted", i)
		assert.LessOrEqual(t, w.CPU, it.Wall+time.Millisecond, "iteration %d: one thread's CPU time fits in the wall time", i)
	}
}

// Each worker's sample names its thread, the one whose switches split the
// iteration's time by cause (--trace): a locked worker's is the same in
// every iteration and no other worker's; the lone worker's is named where
// it kept its thread through the iteration.
func TestWorkersNameTheirThreads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cfg := runspec.ClosedLoop{Workload: "spin", Batch: 5, Iterations: 3, Workers: 2, GOMAXPROCS: 2}
	res, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	first := res.Iterations[0].Workers
	assert.NotZero(t, first[0].TID)
	assert.NotEqual(t, first[0].TID, first[1].TID, "a thread each")
	for i, it := range res.Iterations {
		for w := range it.Workers {
			assert.Equal(t, first[w].TID, it.Workers[w].TID, "iteration %d, worker %d: locked to its thread", i, w)
		}
	}
	cfg.Workers, cfg.GOMAXPROCS = 1, 1
	res, err = RunAlone(context.Background(), cfg, nil)
	require.NoError(t, err)
	unnamed := 0
	for _, it := range res.Iterations {
		if it.Workers[0].TID == 0 {
			unnamed++
		}
	}
	assert.Equal(t, res.ThreadMoves, unnamed, "named unless it changed threads during the iteration")
}

// yieldWork starts a goroutine each operation and yields to it: on the
// worker's own thread when the worker is not locked (GOMAXPROCS 1, so the
// one thread holding the P runs whatever is runnable), on another thread
// when it is (a locked thread hands the P away instead). It counts the
// operations whose goroutine ran on the worker's thread.
type yieldWork struct{ same *atomic.Int64 }

func (w yieldWork) Do() error {
	me := gettid()
	ran := make(chan int)
	go func() { ran <- gettid() }()
	runtime.Gosched()
	if <-ran == me {
		w.same.Add(1)
	}
	return nil
}

// Which workers go unlocked: RunAlone's lone worker, and no other.
func TestOnlyTheLoneWorkerIsUnlocked(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		name     string
		alone    bool
		cfg      runspec.ClosedLoop
		unlocked bool
	}{
		{"RunAlone, one worker", true, runspec.ClosedLoop{Workload: "spin", Batch: 20, Iterations: 2, Workers: 1, GOMAXPROCS: 1}, true},
		{"Run, one worker", false, runspec.ClosedLoop{Workload: "spin", Batch: 20, Iterations: 2, Workers: 1, GOMAXPROCS: 1}, false},
		{"RunAlone, GOMAXPROCS 2", true, runspec.ClosedLoop{Workload: "spin", Batch: 20, Iterations: 2, Workers: 1, GOMAXPROCS: 2}, false},
	} {
		var same atomic.Int64
		rn := runner{maxIterations: runspec.MaxIterations, alone: tc.alone,
			newWorkload: func(string, report.Params, int) (workload.Workload, error) { return yieldWork{&same}, nil }}
		_, err := rn.run(context.Background(), tc.cfg, nil)
		require.NoError(t, err, tc.name)
		if ops := int64(tc.cfg.Batch * (tc.cfg.Iterations + tc.cfg.Warmup)); tc.unlocked {
			assert.Equal(t, ops, same.Load(), "%s: every yield stayed on the worker's thread", tc.name)
		} else {
			assert.Zero(t, same.Load(), "%s: a locked thread runs no other goroutine", tc.name)
		}
	}
}
