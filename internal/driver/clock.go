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

// realClock is the time package's clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) SleepUntil(ctx context.Context, t time.Time) error {
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
