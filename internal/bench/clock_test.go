package bench

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Each clock sleeps until its target, never short of it; fineClock
// across the seam between its Go timer and its sleep in the kernel too.
func TestClocksSleepUntilTheirTarget(t *testing.T) {
	for _, c := range []clock{goClock{}, fineClock{}} {
		for _, d := range []time.Duration{-time.Millisecond, 0, 300 * time.Microsecond, fineLead, fineLead + time.Millisecond, 20 * time.Millisecond} {
			target := c.Now().Add(d)
			assert.NoError(t, c.SleepUntil(context.Background(), target))
			assert.False(t, c.Now().Before(target), "%T woke before a sleep of %v ended", c, d)
		}
	}
}

// A long sleep ends with the context, at once: only fineClock's last
// fineLead is spent where the context cannot reach it.
func TestClocksSleepEndsWithTheContext(t *testing.T) {
	for _, c := range []clock{goClock{}, fineClock{}} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		start := time.Now()
		assert.ErrorIs(t, c.SleepUntil(ctx, start.Add(time.Hour)), context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 500*time.Millisecond, "%T", c)
		cancel()
	}
}

// A context that ends during fineClock's sleep in the kernel is reported
// when the sleep ends, at its instant, also when no other P has run the
// context's timer by then (one P, held by the sleep; CI once lost this
// race with two).
func TestFineClockReportsAContextEndedInItsLastStretch(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ctx, cancel := context.WithTimeout(context.Background(), fineLead/2)
	defer cancel()
	target := time.Now().Add(fineLead)
	assert.ErrorIs(t, fineClock{}.SleepUntil(ctx, target), context.DeadlineExceeded)
	assert.False(t, time.Now().Before(target), "the kernel's sleep runs to its end")
}

// An absolute sleep's instant is CLOCK_MONOTONIC's reading of a
// time.Time: the two clocks agree to within a few µs.
func TestMonoOfIsTheMonotonicClock(t *testing.T) {
	for range 5 {
		m1 := Monotonic()
		got := monoOf(time.Now())
		m2 := Monotonic()
		assert.GreaterOrEqual(t, got, m1-int64(5*time.Microsecond))
		assert.LessOrEqual(t, got, m2+int64(5*time.Microsecond))
	}
	now := time.Now()
	assert.Equal(t, int64(time.Second+7), monoOf(now.Add(time.Second+7))-monoOf(now), "exact between two instants")
}
