package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench/workload"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

func TestLone(t *testing.T) {
	one := runspec.ClosedLoop{Workload: "bcrypt", Workers: 1}
	with := func(f func(*runspec.ClosedLoop)) runspec.ClosedLoop { c := one; f(&c); return c }
	for _, tc := range []struct {
		name       string
		cfg        runspec.ClosedLoop
		gomaxprocs int
		want       bool
	}{
		{"one bcrypt worker", one, 1, true},
		{"one spin worker", with(func(c *runspec.ClosedLoop) { c.Workload = "spin" }), 1, true},
		{"two workers", with(func(c *runspec.ClosedLoop) { c.Workers = 2 }), 2, false},
		{"GOMAXPROCS 2: another thread may take the goroutine", one, 2, false},
		{"pinned: the affinity is a thread's", with(func(c *runspec.ClosedLoop) { c.Pin = true }), 1, false},
		{"one per core: so is this one", with(func(c *runspec.ClosedLoop) { c.OnePerCore = true }), 1, false},
		{"waits: a sleeper may wake elsewhere", with(func(c *runspec.ClosedLoop) { c.Sleep, c.SleepEvery, c.SlowWorkers = time.Millisecond, 1, 1 }), 1, false},
		{"sleeping fast worker is no waits", with(func(c *runspec.ClosedLoop) { c.Sleep, c.SleepEvery, c.SlowWorkers = time.Millisecond, 1, 0 }), 1, true},
		{"memtouch maps memory: system calls of its own", with(func(c *runspec.ClosedLoop) { c.Workload = "memtouch" }), 1, false},
		{"unknown workload", with(func(c *runspec.ClosedLoop) { c.Workload = "nope" }), 1, false},
	} {
		assert.Equal(t, tc.want, lone(tc.cfg, tc.gomaxprocs), tc.name)
	}
}

// countWork counts its operations.
type countWork struct{ n *atomic.Int64 }

func (w countWork) Do() error { w.n.Add(1); return nil }

// A lone worker found on another thread in the middle of a batch reports
// the process's counters for that batch, the sampled migrations, and the
// move in ThreadMoves; the other batches keep their thread's.
func TestLoneWorkerThatMovedReportsTheProcess(t *testing.T) {
	var ops atomic.Int64
	var procReads atomic.Int64
	const batch = 4
	rn := runner{
		newWorkload:   func(string, report.Params, int) (workload.Workload, error) { return countWork{&ops}, nil },
		maxIterations: runspec.MaxIterations,
		alone:         true,
		threads: threadReader{
			// Thread 1 until the second operation of the third iteration
			// (the second measured one), thread 2 from then on.
			tid: func() int {
				if ops.Load() >= 2*batch+2 {
					return 2
				}
				return 1
			},
			// Each read of the process's counters adds an hour of CPU and
			// 7 voluntary switches: no thread's clock grows like that.
			process: func() (time.Duration, threadCounters) {
				n := procReads.Add(1)
				return time.Duration(n) * time.Hour, threadCounters{voluntary: 7 * uint64(n)}
			},
		},
	}
	cfg := runspec.ClosedLoop{Workload: "spin", Batch: batch, Iterations: 3, Warmup: 1, Workers: 1, GOMAXPROCS: 1}
	res, err := rn.run(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, res.Iterations, 3)
	assert.Equal(t, 1, res.ThreadMoves, "one measured iteration changed threads")

	moved := res.Iterations[1].Workers[0]
	assert.Equal(t, time.Hour, moved.CPU, "the process's CPU time between the batch's two reads")
	assert.Equal(t, uint64(7), moved.CtxVoluntary, "and its context switches")
	assert.False(t, moved.KernelMigrations, "no kernel count across two threads")
	assert.Equal(t, batch, moved.Ops)

	// After the move the worker stays on thread 2: the next batch starts
	// there and is a thread's again.
	for _, i := range []int{0, 2} {
		w := res.Iterations[i].Workers[0]
		assert.Less(t, w.CPU, time.Hour, "iteration %d: its thread's clock", i)
		assert.Less(t, w.CtxVoluntary, uint64(7), "iteration %d", i)
	}
}

// Outside a process of its own (Run), or with more than one worker, a
// worker is locked and never asks which thread it is on.
func TestLockedWorkersReadNoThreadID(t *testing.T) {
	for _, tc := range []struct {
		name  string
		alone bool
		cfg   runspec.ClosedLoop
	}{
		{"Run", false, runspec.ClosedLoop{Workload: "spin", Batch: 3, Iterations: 2, Workers: 1, GOMAXPROCS: 1}},
		{"RunAlone, two workers", true, runspec.ClosedLoop{Workload: "spin", Batch: 3, Iterations: 2, Workers: 2, GOMAXPROCS: 2}},
	} {
		var ops atomic.Int64
		rn := runner{
			newWorkload:   func(string, report.Params, int) (workload.Workload, error) { return countWork{&ops}, nil },
			maxIterations: runspec.MaxIterations,
			alone:         tc.alone,
			threads: threadReader{
				tid: func() int { t.Errorf("%s: a locked worker read its thread id", tc.name); return 0 },
				process: func() (time.Duration, threadCounters) {
					t.Errorf("%s: a locked worker read the process's counters", tc.name)
					return 0, threadCounters{}
				},
			},
		}
		res, err := rn.run(context.Background(), tc.cfg, nil)
		require.NoError(t, err, tc.name)
		assert.Zero(t, res.ThreadMoves, tc.name)
	}
}
