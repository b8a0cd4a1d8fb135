//go:build linux

package httpload

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sleepUntil sleeps the calling thread until t on CLOCK_MONOTONIC's
// high-resolution timer, with the thread's timer slack at 1 ns for the
// sleep (the default 50 µs would be added to every arrival). Raw system
// calls, unseen by the runtime (FineClock says why). A signal ends
// clock_nanosleep early (EINTR, whatever SA_RESTART); it sleeps again to
// the same instant, so an interruption costs no drift.
func sleepUntil(t time.Time) {
	unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, 1, 0, 0, 0, 0)
	for {
		d := time.Until(t)
		if d <= 0 {
			break
		}
		ts := unix.NsecToTimespec(monotonic() + int64(d))
		unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	}
	// 0 puts back the thread's default slack: the thread serves other
	// goroutines after this one.
	unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, 0, 0, 0, 0, 0)
}

// monotonic is CLOCK_MONOTONIC in ns, the clock the kernel stamps
// throttle events with.
func monotonic() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return time.Now().UnixNano()
	}
	return ts.Nano()
}
