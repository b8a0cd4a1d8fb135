//go:build linux

package driver

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadID is the calling thread's ID (the caller locked to it), for
// interruptThread.
func threadID() int { return unix.Gettid() }

// interruptThread ends a sleep of thread tid of this process early: the
// kernel returns EINTR from a sleep that a signal handler interrupted,
// whatever the handler's SA_RESTART, and sleepUntilMono's caller then
// looks at its context. The signal is SIGURG, which the Go runtime sends
// its own threads to preempt them and ignores when it asked for nothing.
func interruptThread(tid int) { _ = unix.Tgkill(unix.Getpid(), tid, unix.SIGURG) }

// sleepUntilMono sleeps the calling thread until CLOCK_MONOTONIC reads
// mono (ns), on the kernel's high-resolution timer, or until a signal
// interrupts it (the caller looks at the clock and sleeps again): an
// absolute instant, so neither an interruption nor a late start costs
// drift.
func sleepUntilMono(mono int64) {
	ts := unix.NsecToTimespec(mono)
	clockNanosleepBlocking(&ts)
}

// The runtime's own blocking-call bracket, reached by linkname as gVisor
// does: the runtime keeps both names and signatures for such callers
// (go.dev/issue/67401).
//
//go:linkname entersyscallblock runtime.entersyscallblock
func entersyscallblock()

//go:linkname exitsyscall runtime.exitsyscall
func exitsyscall()

// clockNanosleepBlocking is clock_nanosleep(CLOCK_MONOTONIC,
// TIMER_ABSTIME, ts) as a blocking system call: the thread hands its P
// (its right to run Go code) to the others as it enters, as the runtime's
// own blocking sleeps do. A plain system call keeps the P until the
// runtime's monitor (sysmon) takes it back, and a worker that sleeps
// between requests without ever being rescheduled has it taken back at
// nearly every sleep: with 4 workers at 46 requests/s the monitor woke
// about 1200 times a second, preempting the workers on their CPUs, and
// the slice used 4-8% more CPU than with a generator; while a sleeping
// worker holds a P, a worker that wakes may find none free until the
// monitor takes one back.
//
//go:nosplit
func clockNanosleepBlocking(ts *unix.Timespec) {
	entersyscallblock()
	syscall.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, uintptr(unsafe.Pointer(ts)), 0, 0, 0)
	exitsyscall()
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
