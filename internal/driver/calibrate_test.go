package driver

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
	require.NoError(t, work(context.Background(), cal.iterations(20*time.Millisecond), cal.IterationsPerMs))
	if c0 == 0 {
		t.Skip("no thread CPU clock on this platform")
	}
	assert.InEpsilon(t, 20*time.Millisecond, threadCPU()-c0, 0.3)
}

func TestWorkStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, work(ctx, 1<<62, 1e6), context.Canceled)
	assert.Zero(t, Calibration{IterationsPerMs: 1e6}.iterations(0))
	assert.EqualValues(t, 2_500_000, Calibration{IterationsPerMs: 1e6}.iterations(2500*time.Microsecond))
}
