//go:build linux

package driver

import (
	"golang.org/x/sys/unix"
)

// sleepUntilMono sleeps the calling thread until CLOCK_MONOTONIC reads
// mono (ns), on the kernel's high-resolution timer: an absolute instant,
// so a signal that interrupts the sleep, or a late start of it, costs no
// drift.
func sleepUntilMono(mono int64) {
	ts := unix.NsecToTimespec(mono)
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
	}
}

// preciseTimers sets the calling thread's timer slack to 1 ns, the least
// there is, until the returned restore puts back the thread's default. A
// normal thread's timers may fire up to 50 µs late (the default slack),
// so that the kernel can wake it together with another timer's expiry: a
// saving of power, and 50 µs added to every arrival a worker waits for,
// which a request coming from the network would not pay. The caller must
// be locked to its OS thread.
func preciseTimers() (restore func()) {
	if unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) != nil {
		return func() {}
	}
	return func() { _ = unix.Prctl(unix.PR_SET_TIMERSLACK, 0, 0, 0, 0) }
}
