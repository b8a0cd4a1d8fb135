package bench

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Work of d, realised through the calibration, costs d of this thread's
// CPU time: the promise --work makes.
func TestCalibratedWorkCostsItsCPUTime(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cal := Calibrate()
	require.Positive(t, cal.IterationsPerMs)
	assert.Equal(t, calibrationRounds, cal.Rounds)
	assert.Positive(t, cal.Took)
	assert.NotEmpty(t, cal.Loop)

	c0 := threadCPU()
	require.NoError(t, work(context.Background(), 20*time.Millisecond, cal.IterationsPerMs))
	if c0 == 0 {
		t.Skip("no thread CPU clock on this platform")
	}
	assert.InEpsilon(t, 20*time.Millisecond, threadCPU()-c0, 0.3)
}

// The thread's CPU clock decides when work is done, not the calibration: a
// calibration ten times off either way still costs the CPU time asked, to
// within a few slices.
func TestWorkIsBoundByTheCPUClock(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if threadCPU() == 0 {
		t.Skip("no thread CPU clock on this platform")
	}
	perMs := Calibrate().IterationsPerMs
	for _, f := range []float64{0.1, 10} {
		c0 := threadCPU()
		require.NoError(t, work(context.Background(), 10*time.Millisecond, perMs*f))
		used := threadCPU() - c0
		assert.GreaterOrEqual(t, used, 10*time.Millisecond, "calibration × %v", f)
		// ×10 overestimates a slice tenfold: at most one overshoots.
		assert.Less(t, used, 10*time.Millisecond+10*workSlice+2*time.Millisecond, "calibration × %v", f)
	}
}

func TestWorkStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, work(ctx, time.Hour, 1e6), context.Canceled)
	assert.ErrorIs(t, spinCount(ctx, 1<<62, 1e3), context.Canceled)
	assert.NoError(t, work(ctx, 0, 1e6), "no work, nothing to cancel")
}
