//go:build linux

package bench

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// sleepUntilMono sleeps the calling thread until CLOCK_MONOTONIC reads
// mono (ns), on the kernel's high-resolution timer, or until a signal
// interrupts it (clock_nanosleep is never restarted after a handler,
// whatever its SA_RESTART: the caller looks at the clock and sleeps
// again). A raw system call, unseen by the runtime: fineClock says why,
// and why such a sleep must be short.
func sleepUntilMono(mono int64) {
	ts := unix.NsecToTimespec(mono)
	unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
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
