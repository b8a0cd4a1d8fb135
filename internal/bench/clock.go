package bench

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

// fineClock is the clock of real runs. A sleep ends on the calling
// thread's own absolute timer (sleepUntilMono: clock_nanosleep with
// TIMER_ABSTIME on Linux, the wake-up cyclictest measures), so that a
// worker locked to its OS thread wakes for the arrival it waits for with
// one wake-up and no hand-off between threads. A Go timer alone would wake
// the runtime's poller on another thread (whose epoll timeout is whole
// milliseconds) and then hand the goroutine over to the locked thread:
// two wake-ups, tens of µs each on a VM.
//
// It sleeps in two parts. Up to fineLead before t, on a Go timer, which
// ctx ends at once. Then, for the last fineLead, in the kernel, as a raw
// system call that the runtime does not see: the goroutine keeps its P
// and the runtime takes it for one still running. That is the only
// bracket that costs nothing: a sleep announced as a blocking system call
// (entersyscallblock) hands its P back, and the thread that wakes takes an
// idle P again, which wakes the runtime's monitor (sysmon) from its deep
// sleep to poll every 20 µs for the next millisecond and more: about 40
// wake-ups in a 5 ms request, which cost the slice 10% more CPU than a
// generator and pushed every response 0.6 ms later on our hosts; a sleep
// announced as a plain system call keeps the P until the monitor takes it
// back (after up to 10 ms), which restarts the polling too. Held by a raw
// sleep, a P is busy for at most fineLead, less than the monitor's 10 ms
// before it preempts a running goroutine, and only after the goroutine
// came back from the timer through the scheduler. A signal (the runtime's
// preemption, for one) ends the sleep early (EINTR); it starts again to
// the same instant, so an interruption costs no drift. A copy with a
// timer of its own (own) allocates nothing.
type fineClock struct {
	// tm, when set, is the timer every sleep reuses, so that they allocate
	// nothing (the request path must not: quietgc); a clock with one
	// serves one goroutine at a time (own). Without, a sleep makes its own.
	tm *time.Timer
}

// fineLead is the part of a sleep spent in the kernel rather than on a Go
// timer: longer than the Go timer's lateness (its poller's millisecond
// timeout, a wake-up on a VM), short against the runtime's 10 ms before it
// preempts a goroutine that holds its P, and the most a cancelled sleep
// takes to notice.
const fineLead = 2 * time.Millisecond

func (fineClock) Now() time.Time { return time.Now() }

func (c fineClock) SleepUntil(ctx context.Context, t time.Time) error {
	if err := c.sleepOnTimer(ctx, t.Add(-fineLead)); err != nil {
		return err
	}
	for time.Now().Before(t) {
		sleepUntilMono(monoOf(t))
	}
	return ended(ctx)
}

// ended is ctx's error, or DeadlineExceeded once its deadline has passed.
// A context learns of its deadline from a runtime timer, which runs only
// when some P gets round to it; while our goroutine held its P in the
// kernel, on a machine whose other Ps are busy, it may not have yet.
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

// sleepOnTimer is goClock's sleep, on c's own timer where it has one. A
// stopped timer's channel holds nothing stale (Go 1.23's timers), so Reset
// is safe.
func (c fineClock) sleepOnTimer(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := c.tm
	if tm == nil {
		tm = time.NewTimer(d)
	} else {
		tm.Reset(d)
	}
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		tm.Stop()
		return ctx.Err()
	}
}

// ownClock is a clock that gives each goroutine that sleeps on it a copy
// of its own (fineClock: with a timer of its own).
type ownClock interface {
	own() clock
}

func (fineClock) own() clock {
	tm := time.NewTimer(time.Hour)
	tm.Stop()
	return fineClock{tm: tm}
}

// own is c for the calling goroutine alone: its own copy where c has one.
func own(c clock) clock {
	if o, ok := c.(ownClock); ok {
		return o.own()
	}
	return c
}
