package bench

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench/workload"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

func TestRunShapesTheResult(t *testing.T) {
	cfg := runspec.ClosedLoop{Workload: "bcrypt", Params: bcryptAt(4), Batch: 3, Iterations: 4, Warmup: 2, Workers: 2, GOMAXPROCS: 2}
	warm := 0
	res, err := Run(context.Background(), cfg, func() error { warm++; return nil })
	require.NoError(t, err)
	assert.Equal(t, 1, warm, "beforeMeasure runs once, after the warm-up")
	assert.Equal(t, 2, res.GOMAXPROCS)
	require.Len(t, res.Iterations, 4, "warm-up iterations are discarded")
	for _, it := range res.Iterations {
		require.Len(t, it.Workers, 2)
		var slowest time.Duration
		for _, w := range it.Workers {
			assert.Positive(t, w.Wall)
			assert.Positive(t, w.CPU, "thread CPU time is measured")
			assert.Equal(t, 3, w.Ops, "every operation of the batch")
			slowest = max(slowest, w.Wall)
		}
		assert.Equal(t, slowest, it.Wall, "an iteration lasts until its last worker is done")
	}
	// On CLOCK_MONOTONIC, each iteration starts where the previous ended:
	// back to back, as the throttle events are stamped.
	before := Monotonic()
	for i, it := range res.Iterations {
		assert.Less(t, it.StartMono, before, "iteration %d started before now", i)
		if i > 0 {
			prev := res.Iterations[i-1]
			assert.Equal(t, prev.StartMono+int64(prev.Wall), it.StartMono, "iteration %d", i)
		}
	}
}

// Each cost step doubles bcrypt's work; thread CPU time must show it.
func TestCostScalesCPUTime(t *testing.T) {
	cpu := func(cost int) time.Duration {
		res, err := Run(context.Background(), runspec.ClosedLoop{Workload: "bcrypt", Params: bcryptAt(cost), Batch: 4, Iterations: 3, Workers: 1, GOMAXPROCS: 1}, nil)
		require.NoError(t, err)
		var sum time.Duration
		for _, it := range res.Iterations {
			sum += it.Workers[0].CPU
		}
		return sum
	}
	ratio := float64(cpu(7)) / float64(cpu(5))
	assert.InDelta(t, 4, ratio, 1.5, "cost 7 vs 5 should take about 4× the CPU")
}

func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, runspec.ClosedLoop{Workload: "bcrypt", Params: bcryptAt(4), Batch: 1000000, Iterations: 1, Workers: 2, GOMAXPROCS: 2}, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestBeforeMeasureErrorStopsTheRun(t *testing.T) {
	boom := errors.New("boom")
	_, err := Run(context.Background(), runspec.ClosedLoop{Workload: "bcrypt", Params: bcryptAt(4), Batch: 1, Iterations: 1, Warmup: 1, Workers: 1, GOMAXPROCS: 1},
		func() error { return boom })
	assert.ErrorIs(t, err, boom)
}

func TestGOMAXPROCSRuntimeDefault(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	assert.Equal(t, 3, ApplyGOMAXPROCS(3))
	assert.GreaterOrEqual(t, ApplyGOMAXPROCS(0), 1)
}

// The workload's refusal reaches the caller with its kind, before any
// iteration runs.
func TestRunRefusesABadWorkload(t *testing.T) {
	called := false
	_, err := Run(context.Background(), runspec.ClosedLoop{Workload: "bcrypt", Params: bcryptAt(3), Batch: 1, Iterations: 1, Workers: 1, GOMAXPROCS: 1},
		func() error { called = true; return nil })
	assert.ErrorIs(t, err, decl.ErrBadConfig)
	assert.False(t, called)
}

// sleepWork stands in for bcrypt where a test needs iterations of a known
// length and no CPU: an operation sleeps for d.
type sleepWork struct{ d time.Duration }

func (w sleepWork) Do() error { time.Sleep(w.d); return nil }

func sleeping(d time.Duration, maxIterations int) runner {
	return runner{
		newWorkload:   func(string, report.Params, int) (workload.Workload, error) { return sleepWork{d}, nil },
		maxIterations: maxIterations,
	}
}

func window(res Result) time.Duration {
	var sum time.Duration
	for _, it := range res.Iterations {
		sum += it.Wall
	}
	return sum
}

// --min-time keeps measuring until the measured iterations span it, and
// stops at the first iteration that gets there. Its 500 ms is 25 times
// the two asked iterations' sleeps: a busy machine stretches a 10 ms
// sleep, and with 100 ms two stretched sleeps had spanned it already.
func TestMinTimeExtendsTheRun(t *testing.T) {
	const op = 10 * time.Millisecond
	cfg := runspec.ClosedLoop{Workload: "sleep", Batch: 1, Iterations: 2, Warmup: 1, Workers: 2, GOMAXPROCS: 2, MinTime: 500 * time.Millisecond}
	res, err := sleeping(op, runspec.MaxIterations).run(context.Background(), cfg, nil)
	require.NoError(t, err)
	w := window(res)
	assert.GreaterOrEqual(t, w, cfg.MinTime)
	last := res.Iterations[len(res.Iterations)-1].Wall
	assert.Less(t, w-last, cfg.MinTime, "one iteration fewer would not have reached --min-time")
	assert.Greater(t, len(res.Iterations), cfg.Iterations)
}

// --iterations stays a minimum: a --min-time that the asked iterations
// already cover changes nothing.
func TestMinTimeBelowTheIterationsChangesNothing(t *testing.T) {
	cfg := runspec.ClosedLoop{Workload: "sleep", Batch: 1, Iterations: 5, Workers: 1, GOMAXPROCS: 1, MinTime: time.Millisecond}
	res, err := sleeping(2*time.Millisecond, runspec.MaxIterations).run(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Len(t, res.Iterations, 5)

	cfg.MinTime = 0
	res, err = sleeping(2*time.Millisecond, runspec.MaxIterations).run(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Len(t, res.Iterations, 5, "0 = off")
}

// However long --min-time, the run ends at the bound on iterations.
func TestMinTimeStopsAtTheIterationBound(t *testing.T) {
	cfg := runspec.ClosedLoop{Workload: "sleep", Batch: 1, Iterations: 2, Workers: 1, GOMAXPROCS: 1, MinTime: time.Hour}
	res, err := sleeping(time.Millisecond, 7).run(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Len(t, res.Iterations, 7)
}

// The child receives --min-time with the rest of the configuration.
func TestConfigCarriesMinTime(t *testing.T) {
	in := runspec.ClosedLoop{Workload: "bcrypt", Params: bcryptAt(4), Batch: 1, Iterations: 1, Workers: 1, MinTime: 1500 * time.Millisecond}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	var out runspec.ClosedLoop
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, in, out)
}

// fibtest's fast and slow threads: the slow worker's wall time holds its
// sleeps (10 operations, a sleep after every 5: two of 15 ms), its CPU time
// does not; the fast worker sleeps not at all.
func TestSlowWorkersSleep(t *testing.T) {
	cfg := runspec.ClosedLoop{Workload: "spin", Params: report.Params{}.With("units", 1), Batch: 10, Iterations: 2, Workers: 2, GOMAXPROCS: 2,
		Sleep: 15 * time.Millisecond, SleepEvery: 5, SlowWorkers: 1}
	assert.True(t, cfg.Slow(0))
	assert.False(t, cfg.Slow(1))
	res, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	for _, it := range res.Iterations {
		slow, fast := it.Workers[0], it.Workers[1]
		assert.GreaterOrEqual(t, slow.Wall-slow.CPU, 30*time.Millisecond, "wall time includes the sleeps")
		assert.Less(t, slow.CPU, 15*time.Millisecond, "CPU time does not")
		// That the fast worker does not sleep is cfg.Slow(1), above: its
		// wall time against the slow one's is the machine's load too (a
		// busy loop on each CPU made it 25 ms or more, issue 32).
		assert.Less(t, fast.CPU, 15*time.Millisecond, "the fast worker did its ten operations")
	}
}

// Each worker's page faults are its own thread's: a fresh memtouch
// operation of 1 MiB faults about 256 times with 4 KiB pages, painting
// every byte (the default) or one per page; reusing its buffer, no more
// after the warm-up.
func TestWorkerFaults(t *testing.T) {
	pages := float64(4 * (1 << 20) / os.Getpagesize())
	for _, c := range []struct {
		memory, touch string
		want          float64
	}{{"fresh", "all", pages}, {"fresh", "page", pages}, {"reuse", "all", 0}, {"reuse", "page", 0}} {
		res, err := Run(context.Background(), runspec.ClosedLoop{Workload: "memtouch", Params: report.Params{}.With("buffer_bytes", 1<<20).With("memory", c.memory).With("touch", c.touch),
			Batch: 4, Iterations: 2, Warmup: 1, Workers: 2, GOMAXPROCS: 2}, nil)
		require.NoError(t, err)
		for _, it := range res.Iterations {
			for _, w := range it.Workers {
				if runtime.GOOS == "linux" {
					assert.InDelta(t, c.want, float64(w.FaultsMinor), pages/10, "memory %q touch %q", c.memory, c.touch)
				}
			}
		}
	}
}

// The configuration's Params reach the workload as they are, words as
// words (no second mapping here), with the batch (memtouch reuse keeps a
// buffer per operation of it).
func TestConfigParamsReachTheWorkload(t *testing.T) {
	ps := report.Params{}.With("buffer_bytes", 8192).With("memory", "reuse").With("touch", "page")
	var got report.Params
	var batch int
	rn := runner{maxIterations: runspec.MaxIterations, newWorkload: func(_ string, p report.Params, b int) (workload.Workload, error) {
		got, batch = p, b
		return countWork{new(atomic.Int64)}, nil
	}}
	_, err := rn.run(context.Background(), runspec.ClosedLoop{Workload: "memtouch", Params: ps, Batch: 3, Iterations: 1, Workers: 1, GOMAXPROCS: 1}, nil)
	require.NoError(t, err)
	assert.Equal(t, ps, got)
	assert.Equal(t, 3, batch)
}

// cost is bcrypt's config at cost n.
func bcryptAt(n int) report.Params { return report.Params{}.With("cost", n) }

// tickWork stands in for the workload where a test counts CPU time: each
// operation advances a fake process CPU clock by a millisecond.
type tickWork struct{ clock *atomic.Int64 }

func (w tickWork) Do() error { w.clock.Add(int64(time.Millisecond)); return nil }

// The process's CPU time covers the measured iterations alone: not the
// warm-up, not the pause for the caller's counters before them.
func TestMeasuredCPUCoversTheMeasuredIterations(t *testing.T) {
	var clock atomic.Int64
	rn := runner{
		newWorkload:   func(string, report.Params, int) (workload.Workload, error) { return tickWork{&clock}, nil },
		maxIterations: runspec.MaxIterations,
		processCPU:    func() (time.Duration, error) { return time.Duration(clock.Load()), nil },
	}
	cfg := runspec.ClosedLoop{Workload: "tick", Batch: 4, Iterations: 3, Warmup: 2, Workers: 2, GOMAXPROCS: 2}
	res, err := rn.run(context.Background(), cfg, func() error {
		assert.Equal(t, int64(2*4*2*time.Millisecond), clock.Load(), "the warm-up is done")
		clock.Add(int64(100 * time.Millisecond)) // the caller's pause
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 3*4*2*time.Millisecond, res.MeasuredCPU, "3 iterations × 4 ops × 2 workers × 1 ms")

	// Without a warm-up the window starts at the first iteration.
	clock.Store(0)
	cfg.Warmup = 0
	res, err = rn.run(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Equal(t, 24*time.Millisecond, res.MeasuredCPU)
}

// A clock that cannot be read leaves the CPU time unknown: 0, never a
// guess; the run stands.
func TestMeasuredCPUUnknown(t *testing.T) {
	rn := sleeping(time.Millisecond, runspec.MaxIterations)
	rn.processCPU = func() (time.Duration, error) { return 0, errors.New("no clock") }
	res, err := rn.run(context.Background(), runspec.ClosedLoop{Workload: "sleep", Batch: 1, Iterations: 2, Workers: 1, GOMAXPROCS: 1}, nil)
	require.NoError(t, err)
	assert.Zero(t, res.MeasuredCPU)
	assert.Len(t, res.Iterations, 2)
}

// The real clock: a CPU-bound run's process CPU time is at least its
// workers' thread CPU time over the same iterations.
func TestMeasuredCPUOfARealRun(t *testing.T) {
	res, err := Run(context.Background(), runspec.ClosedLoop{Workload: "spin", Params: report.Params{}.With("units", 1000), Batch: 20, Iterations: 3, Warmup: 1, Workers: 2, GOMAXPROCS: 2}, nil)
	require.NoError(t, err)
	var threads time.Duration
	for _, it := range res.Iterations {
		for _, w := range it.Workers {
			threads += w.CPU
		}
	}
	require.Positive(t, threads)
	assert.GreaterOrEqual(t, res.MeasuredCPU, threads)
}
