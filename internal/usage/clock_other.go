//go:build !linux

package usage

import (
	"context"
	"time"
)

// PollClock is NewClock's clock where there is no timerfd: the cost the
// Linux one saves is a Linux matter (see clock_linux.go).
type PollClock struct{ realClock }

// OpenClock makes a PollClock, its origin now.
func OpenClock() (*PollClock, error) { return &PollClock{realClock{origin: time.Now()}}, nil }

// SleepUntil returns at t (at once when t has passed), or with ctx's error
// when ctx ends first.
func (c *PollClock) SleepUntil(ctx context.Context, t time.Duration) error {
	return c.realClock.SleepUntil(ctx, t)
}

// Close releases nothing.
func (c *PollClock) Close() error { return nil }
