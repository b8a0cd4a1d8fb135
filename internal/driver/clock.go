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

// fineClock is the clock of real runs. It sleeps the calling thread itself
// on the kernel's high-resolution timer, to an absolute instant
// (sleepUntilMono: clock_nanosleep with TIMER_ABSTIME on Linux), so that a
// worker locked to its OS thread wakes for the arrival it waits for with
// one wake-up, the same one cyclictest measures. A Go timer would wake the
// runtime's poller on another thread first (whose epoll timeout is whole
// milliseconds) and then hand the goroutine over to the locked thread: two
// wake-ups, tens of µs each on a VM. ctx cannot interrupt a sleep in the
// kernel: the open loop interrupts its workers' with a signal when ctx
// ends (threadWaker), and each sleep is cut into stretches of at most
// fineSleepMax with ctx checked between, in case the signal came just
// before the sleep began. Each stretch ends at an absolute instant, so
// cutting adds no drift. It allocates nothing.
type fineClock struct{}

// fineSleepMax is the longest stretch slept without looking at ctx: the
// most a cancelled sleep can take to notice when no signal interrupts it,
// and one wake-up a second in a sleep longer than that (a worker waiting
// through a long gap between arrivals wakes no more often, so that a
// quiet slice stays quiet: its periods are not counted as active).
const fineSleepMax = time.Second

func (fineClock) Now() time.Time { return time.Now() }

func (fineClock) SleepUntil(ctx context.Context, t time.Time) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := time.Now()
		if !now.Before(t) {
			return nil
		}
		end := t
		if t.Sub(now) > fineSleepMax {
			end = now.Add(fineSleepMax)
		}
		sleepUntilMono(monoOf(end))
	}
}

// waitClock is for a sleep that no signal ends early (an instance's
// --wait, on a thread the open loop does not know): a Go timer, which ctx
// ends at once, up to the last waitFine before t, then fineClock for a
// precise end.
type waitClock struct{ goClock }

// waitFine is the part of a waitClock sleep left to fineClock, which ctx
// does not end.
const waitFine = 2 * time.Millisecond

func (c waitClock) SleepUntil(ctx context.Context, t time.Time) error {
	if err := c.goClock.SleepUntil(ctx, t.Add(-waitFine)); err != nil {
		return err
	}
	return fineClock{}.SleepUntil(ctx, t)
}
