package driver

import (
	"context"
	"time"
)

// clock is the open loop's only source of time, so that its bookkeeping can
// be driven by a test. time.Time carries the monotonic reading, so
// differences are immune to wall-clock steps.
type clock interface {
	Now() time.Time
	// SleepUntil returns at t or later, or with ctx's error when ctx ends
	// first.
	SleepUntil(ctx context.Context, t time.Time) error
}

// goClock is the time package's clock and its timers, which a synctest
// bubble fakes.
type goClock struct{}

func (goClock) Now() time.Time { return time.Now() }

func (goClock) SleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fineClock is the clock of real runs: goClock, with the last stretch of
// each sleep on the kernel's fine timer (fineSleep), so that an arrival is
// sent within tens of µs of its time rather than up to 1 ms late.
type fineClock struct{ goClock }

// fineSleepMax is the longest sleep left to fineSleep, which ctx cannot
// interrupt; a Go timer, which it can, covers the rest.
const fineSleepMax = 2 * time.Millisecond

func (c fineClock) SleepUntil(ctx context.Context, t time.Time) error {
	if err := c.goClock.SleepUntil(ctx, t.Add(-fineSleepMax)); err != nil {
		return err
	}
	if d := time.Until(t); d > 0 {
		fineSleep(d)
	}
	return ctx.Err()
}
