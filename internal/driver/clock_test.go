package driver

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Each clock sleeps until its target, never short of it; fineClock
// across the seam between two stretches of its sleep too.
func TestClocksSleepUntilTheirTarget(t *testing.T) {
	for _, c := range []clock{goClock{}, fineClock{}, waitClock{}} {
		ds := []time.Duration{-time.Millisecond, 0, 300 * time.Microsecond, 20 * time.Millisecond}
		if _, ok := c.(fineClock); ok {
			ds = append(ds, fineSleepMax+time.Millisecond)
		}
		for _, d := range ds {
			target := c.Now().Add(d)
			assert.NoError(t, c.SleepUntil(context.Background(), target))
			assert.False(t, c.Now().Before(target), "%T woke before a sleep of %v ended", c, d)
		}
	}
}

// A long sleep ends with the context: goClock's and waitClock's at once,
// fineClock's at the end of its stretch (fineSleepMax) unless a signal
// interrupts it, as the open loop's does
// (TestCancelInterruptsSleepingWorkers).
func TestClocksSleepEndsWithTheContext(t *testing.T) {
	for _, c := range []clock{goClock{}, waitClock{}, fineClock{}} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		start := time.Now()
		assert.ErrorIs(t, c.SleepUntil(ctx, start.Add(time.Hour)), context.DeadlineExceeded)
		bound := fineSleepMax + time.Second
		if _, ok := c.(fineClock); !ok {
			bound = fineSleepMax / 2
		}
		assert.Less(t, time.Since(start), bound, "%T", c)
		cancel()
	}
}

// A signal ends a sleep in the kernel early, so that its caller can look
// at its context.
func TestInterruptThread(t *testing.T) {
	if threadID() == 0 {
		t.Skip("no thread to interrupt here")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := threadID()
	go func() {
		time.Sleep(20 * time.Millisecond)
		interruptThread(tid)
	}()
	start := time.Now()
	sleepUntilMono(monoOf(start.Add(fineSleepMax)))
	assert.Less(t, time.Since(start), fineSleepMax/2)
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
