package driver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Each clock sleeps until its target, never short of it, across the seam
// between the Go timer and the fine sleep.
func TestClocksSleepUntilTheirTarget(t *testing.T) {
	for _, c := range []clock{goClock{}, fineClock{}} {
		for _, d := range []time.Duration{-time.Millisecond, 0, 300 * time.Microsecond, fineSleepMax + time.Millisecond} {
			target := c.Now().Add(d)
			assert.NoError(t, c.SleepUntil(context.Background(), target))
			assert.False(t, c.Now().Before(target), "%T woke before a sleep of %v ended", c, d)
		}
	}
}

// A long sleep ends with the context; only the last fineSleepMax is not
// interruptible.
func TestClocksSleepEndsWithTheContext(t *testing.T) {
	for _, c := range []clock{goClock{}, fineClock{}} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		start := time.Now()
		assert.ErrorIs(t, c.SleepUntil(ctx, start.Add(time.Hour)), context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 5*time.Second)
		cancel()
	}
}
