package bench

import (
	"context"
	"math"
	"runtime/debug"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/quietgc"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// oversleepingClock wakes each sleep late by the next of lates, in turn:
// a machine whose timers fire that late.
type oversleepingClock struct {
	goClock
	lates []time.Duration
	n     *int
}

func (c oversleepingClock) SleepUntil(ctx context.Context, t time.Time) error {
	late := c.lates[*c.n%len(c.lates)]
	*c.n++
	return c.goClock.SleepUntil(ctx, t.Add(late))
}

// The floor is the wake-ups' lateness through the open loop, read at its
// percentiles: here 196 wake-ups 30 µs late, three 400 µs and one 900 µs.
func TestMeasureFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lates := make([]time.Duration, floorWakeups)
		for i := range lates {
			lates[i] = 30 * time.Microsecond
		}
		lates[10], lates[50], lates[90], lates[150] = 400*time.Microsecond, 400*time.Microsecond, 400*time.Microsecond, 900*time.Microsecond
		n := 0
		start := time.Now()
		f, err := measureFloor(t.Context(), oversleepingClock{lates: lates, n: &n}, 1, runspec.OpenLoop{Rate: 500, Arrivals: runspec.ArrivalsFixed})
		require.NoError(t, err)
		assert.Equal(t, floorWakeups, f.Wakeups)
		assert.Equal(t, 2*time.Millisecond, f.Interval)
		assert.Equal(t, runspec.ArrivalsFixed, f.Arrivals)
		assert.InEpsilon(t, 30*time.Microsecond, f.P50, 0.001)
		assert.InEpsilon(t, 400*time.Microsecond, f.P99, 0.001, "the 198th of 200")
		assert.InEpsilon(t, 900*time.Microsecond, f.P999, 0.001)
		assert.Equal(t, 900*time.Microsecond, f.Max)
		assert.Equal(t, time.Since(start), f.Took)
		assert.Equal(t, 199*2*time.Millisecond+30*time.Microsecond, f.Took, "the last arrival and its wake-up")
	})
}

func TestMeasureFloorStopsWithTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		_, err := measureFloor(ctx, goClock{}, 2, runspec.OpenLoop{Rate: 1000, Arrivals: runspec.ArrivalsFixed})
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
}

// The floor's wake-ups are spaced as the run's arrivals while they
// arrive, their mean gap within 1 to 5 ms, poisson when the run's are.
func TestFloorSchedule(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		o    runspec.OpenLoop
		kind string
		gap  time.Duration
	}{
		{runspec.OpenLoop{Rate: 200, Arrivals: runspec.ArrivalsPoisson, Seed: 7}, runspec.ArrivalsPoisson, 5 * ms},
		{runspec.OpenLoop{Rate: 500, Arrivals: runspec.ArrivalsFixed}, runspec.ArrivalsFixed, 2 * ms},
		{runspec.OpenLoop{Rate: 10, Arrivals: runspec.ArrivalsFixed}, runspec.ArrivalsFixed, 5 * ms},
		{runspec.OpenLoop{Rate: 1e5, Arrivals: runspec.ArrivalsPoisson}, runspec.ArrivalsPoisson, ms},
		// 46/s over a 750 ms cycle, all in its first 150 ms: 230/s then.
		{runspec.OpenLoop{Rate: 46, Arrivals: runspec.ArrivalsOnOff, On: 150 * ms, Off: 600 * ms}, runspec.ArrivalsFixed, 4347826},
		{runspec.OpenLoop{Rate: 46, Arrivals: runspec.ArrivalsOnOff, On: 150 * ms}, runspec.ArrivalsFixed, 5 * ms},
		{runspec.OpenLoop{Arrivals: runspec.ArrivalsOnce, Count: 100}, runspec.ArrivalsFixed, ms},
		{runspec.OpenLoop{Rate: 0, Arrivals: runspec.ArrivalsFixed}, runspec.ArrivalsFixed, ms},
	} {
		sched, kind, gap := FloorSchedule(tc.o)
		assert.Equal(t, tc.kind, kind, "%+v", tc.o)
		assert.InDelta(t, tc.gap, gap, 1, "%+v", tc.o)
		require.Len(t, sched, floorWakeups)
		assert.True(t, slices.IsSorted(sched))
		mean := float64(sched[len(sched)-1]) / float64(len(sched)-1)
		if kind == runspec.ArrivalsFixed {
			assert.InDelta(t, float64(gap), mean, 1)
		} else {
			assert.InEpsilon(t, float64(gap), mean, 0.25, "the mean of 200 exponential gaps")
		}
	}
}

// The collector is off while a window is measured, with a memory limit
// as a backstop, and both settings come back after.
func TestQuietGC(t *testing.T) {
	pct := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	defer func() { debug.SetGCPercent(pct); debug.SetMemoryLimit(limit) }()

	restore := quietgc.Start()
	assert.Equal(t, -1, debug.SetGCPercent(-1), "off during the window")
	during := debug.SetMemoryLimit(-1)
	assert.Less(t, during, int64(math.MaxInt64), "a limit to stop a runaway")
	assert.GreaterOrEqual(t, during, int64(quietgc.Headroom))
	restore()
	assert.Equal(t, 100, debug.SetGCPercent(100))
	assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
}

// A floor measured elsewhere is summarised as the open loop's own:
// percentiles of the response times given, the exact max.
func TestFloorFrom(t *testing.T) {
	var lat []time.Duration
	for i := 1; i <= 1000; i++ {
		lat = append(lat, time.Duration(i)*time.Microsecond)
	}
	f := FloorFrom(lat, runspec.ArrivalsFixed, 5*time.Millisecond, time.Second)
	assert.Equal(t, 1000, f.Wakeups)
	assert.Equal(t, runspec.ArrivalsFixed, f.Arrivals)
	assert.Equal(t, 5*time.Millisecond, f.Interval)
	assert.Equal(t, time.Second, f.Took)
	assert.InDelta(t, 500*time.Microsecond, f.P50, float64(time.Microsecond))
	assert.InDelta(t, 990*time.Microsecond, f.P99, float64(time.Microsecond))
	assert.InDelta(t, 999*time.Microsecond, f.P999, float64(time.Microsecond))
	assert.Equal(t, 1000*time.Microsecond, f.Max)

	none := FloorFrom(nil, runspec.ArrivalsPoisson, time.Millisecond, 0)
	assert.Zero(t, none.Wakeups)
	assert.Zero(t, none.P50)
}
