//go:build linux

package driver

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Where each worker ran, on the real host: every sample's CPUs are CPUs
// this process may run on, its counts agree with each other, and the slow
// worker's sleeps show as voluntary context switches.
func TestPlacementOnTheHost(t *testing.T) {
	const batch, every = 20, 5
	cfg := Config{Workload: "spin", Units: 1, Batch: batch, Iterations: 3, Workers: 2, GOMAXPROCS: 2,
		Sleep: 2 * time.Millisecond, SleepEvery: every, SlowWorkers: 1}
	res, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)

	var allowed unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &allowed))
	_, kernel := threadMigrations()
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
	n0, ok := threadMigrations()
	require.True(t, ok)
	n1, ok := threadMigrations()
	require.True(t, ok)
	assert.GreaterOrEqual(t, n1, n0, "a count, never going back")
}

func TestGetCPUIsAnAllowedCPU(t *testing.T) {
	var allowed unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &allowed))
	for range 100 {
		c := getCPU()
		require.GreaterOrEqual(t, c, 0)
		assert.True(t, allowed.IsSet(c), "CPU %d", c)
	}
}
