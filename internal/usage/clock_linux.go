//go:build linux

package usage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PollClock is the real monotonic clock for a sampler that runs for long
// and must cost next to nothing: each wait is a timerfd armed for the
// absolute instant (CLOCK_MONOTONIC, TFD_TIMER_ABSTIME) and waited for in
// the runtime's network poller, so the timer's expiry wakes one thread, the
// one that runs the sampler, and nothing else.
//
// NewClock's Go timer wakes more: the runtime's monitor thread (sysmon)
// sleeps only until the next Go timer, so it wakes with every tick too, and
// epoll_wait's timeout is in whole milliseconds, so the timer comes up to a
// millisecond late and is often polled twice. Sleeping in clock_nanosleep
// on a locked thread wakes three: entering a blocking system call wakes
// sysmon, which hands the sleeper's P to another thread, and taking it back
// wakes sysmon again. With no Go timer pending and no ordinary system call
// made, sysmon stays in its deep sleep (up to a minute).
//
// A PollClock is for one goroutine at a time; Close releases it.
type PollClock struct {
	origin time.Time
	// mono0 is CLOCK_MONOTONIC at origin, read just after it: a deadline
	// in its terms is never earlier than the same instant in Now's.
	mono0 int64
	fd    int
	f     *os.File
	rc    syscall.RawConn
	// done is the Done channel of the context whose end interrupts a wait
	// (by a read deadline in the past), registered once rather than on
	// every wait; stop unregisters it.
	done <-chan struct{}
	stop func() bool
	// read is readTimer, expired and readErr what it found.
	read    func(fd uintptr) bool
	expired uint64
	readErr error
}

// aLongTimeAgo is a read deadline that has passed: it ends a wait at once.
var aLongTimeAgo = time.Unix(1, 0)

// OpenClock makes a PollClock, its origin now.
func OpenClock() (*PollClock, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("creating a timerfd: %w", err)
	}
	// A non-blocking descriptor: os.NewFile registers it with the poller.
	f := os.NewFile(uintptr(fd), "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("the timerfd's raw connection: %w", err)
	}
	c := &PollClock{fd: fd, f: f, rc: rc, origin: time.Now()}
	c.read = c.readTimer
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		f.Close()
		return nil, fmt.Errorf("reading CLOCK_MONOTONIC: %w", err)
	}
	c.mono0 = ts.Nano()
	return c, nil
}

// Now is the time since the origin, read through the vDSO as time.Now is
// (no system call).
func (c *PollClock) Now() time.Duration { return time.Since(c.origin) }

// SleepUntil returns at t (at once when t has passed), or with ctx's error
// when ctx ends first.
func (c *PollClock) SleepUntil(ctx context.Context, t time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if t <= c.Now() {
		return nil
	}
	if done := ctx.Done(); done != c.done {
		c.watch(ctx, done)
	}
	// Raw system calls, as for cgroup.UsageFile: neither blocks, and an
	// ordinary one would wake sysmon.
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(c.mono0 + int64(t))}
	if _, _, errno := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(c.fd), unix.TFD_TIMER_ABSTIME, uintptr(unsafe.Pointer(&its)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("arming the timerfd: %w", errno)
	}
	for {
		c.readErr = nil
		err := c.rc.Read(c.read)
		switch {
		case err == nil && c.readErr != nil:
			return fmt.Errorf("reading the timerfd: %w", c.readErr)
		case err == nil:
			return nil
		case !errors.Is(err, os.ErrDeadlineExceeded):
			return fmt.Errorf("waiting for the timerfd: %w", err)
		case ctx.Err() != nil:
			return ctx.Err()
		}
		// A deadline set for a context given up earlier: clear it, wait on.
		if err := c.f.SetReadDeadline(time.Time{}); err != nil {
			return fmt.Errorf("waiting for the timerfd: %w", err)
		}
	}
}

// readTimer reads the timerfd's expiry count: false (wait in the poller)
// while the timer has not expired. It is the function RawConn.Read calls,
// made once (as c.read) so that a wait allocates nothing.
func (c *PollClock) readTimer(fd uintptr) bool {
	for {
		_, _, errno := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&c.expired)), 8)
		switch errno {
		case 0:
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		default:
			c.readErr = errno
		}
		return true
	}
}

// watch makes ctx's end interrupt the waits from now on, instead of the
// context watched before.
func (c *PollClock) watch(ctx context.Context, done <-chan struct{}) {
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
	c.f.SetReadDeadline(time.Time{})
	c.done = done
	if done != nil {
		c.stop = context.AfterFunc(ctx, func() { c.f.SetReadDeadline(aLongTimeAgo) })
	}
}

// Close releases the timerfd.
func (c *PollClock) Close() error {
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
	return c.f.Close()
}
