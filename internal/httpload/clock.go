package httpload

import (
	"context"
	"time"
)

// Clock is the load's only source of time, so that a caller may bring its
// own. SleepUntil is called by one goroutine at a time (the worker that
// waits for the next arrival holds the dispatcher's lock while it sleeps).
type Clock interface {
	Now() time.Time
	// SleepUntil returns at t or later, or with ctx's error when ctx ends
	// first.
	SleepUntil(ctx context.Context, t time.Time) error
}

// FineLead is the part of FineClock's sleep spent in the kernel rather than
// on a Go timer: longer than a Go timer's lateness (the runtime's poller
// waits in whole milliseconds, rounded up below one), and short against the
// runtime's 10 ms before it preempts a goroutine that holds its P.
const FineLead = 2 * time.Millisecond

// FineClock is the default Clock: a Go timer until FineLead before t,
// which ctx ends at once, then an absolute sleep on the kernel's
// high-resolution timer with a 1 ns timer slack (clock_nanosleep with
// TIMER_ABSTIME on Linux), so that the worker wakes for its arrival within
// a few µs and sends the request from the thread that woke.
//
// This is the idea of the open loop's clock in the engine's package,
// written again here (its sleep is a few lines) so that this package
// imports nothing of the engine. The last part is a raw system call that
// the runtime does not see: the goroutine keeps its P while it sleeps,
// which is what makes the wake-up cheap, and why only one goroutine at a
// time may sleep so (Clock's rule) and for at most FineLead.
type FineClock struct {
	tm *time.Timer // reused, so that a sleep allocates nothing
	// Spin is the last part of a sleep spent awake, reading the clock, so
	// that the CPU is not idle when the arrival comes: waking an idle vCPU
	// took 35-45 µs at the median here, which 80 µs of spin took off the
	// floor's p50 at 2,000/s (120 → 77 µs) for 16% of a CPU. 0, the
	// default, spins not at all: the client should not take CPU from a
	// target on the same machine.
	Spin time.Duration
}

// NewFineClock returns a FineClock with a timer of its own.
func NewFineClock() *FineClock {
	tm := time.NewTimer(time.Hour)
	tm.Stop()
	return &FineClock{tm: tm}
}

// Now is time.Now: its monotonic reading makes differences immune to steps.
func (*FineClock) Now() time.Time { return time.Now() }

// SleepUntil sleeps until t (see FineClock).
func (c *FineClock) SleepUntil(ctx context.Context, t time.Time) error {
	if d := time.Until(t.Add(-FineLead)); d > 0 {
		// A stopped timer's channel holds nothing stale (Go 1.23's
		// timers), so Reset is safe.
		c.tm.Reset(d)
		select {
		case <-c.tm.C:
		case <-ctx.Done():
			c.tm.Stop()
			return ctx.Err()
		}
	}
	if time.Now().Before(t.Add(-c.Spin)) {
		sleepUntil(t.Add(-c.Spin))
	}
	for c.Spin > 0 && time.Now().Before(t) {
	}
	return ctx.Err()
}
