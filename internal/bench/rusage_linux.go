//go:build linux

package bench

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadUsage is the calling thread's counters so far, from one
// getrusage(RUSAGE_THREAD): its page faults, minor (no I/O: a fresh page
// allocated, or one found in the page cache) and major (read from disk),
// and its context switches, voluntary (it blocked: a sleep, a lock) and
// involuntary (the scheduler took the CPU away: a higher-priority task, the
// end of its slice, throttling). The caller must be locked to its OS
// thread (or be a lone worker). On error all read 0. A raw system call, as
// threadCPU says why.
func threadUsage() threadCounters { return rusage(unix.RUSAGE_THREAD) }

// processUsage is the same counters for the whole process, every thread.
func processUsage() threadCounters { return rusage(unix.RUSAGE_SELF) }

func rusage(who int) threadCounters {
	var ru unix.Rusage
	if _, _, e := unix.RawSyscall(unix.SYS_GETRUSAGE, uintptr(who), uintptr(unsafe.Pointer(&ru)), 0); e != 0 {
		return threadCounters{}
	}
	return threadCounters{minor: uint64(ru.Minflt), major: uint64(ru.Majflt),
		voluntary: uint64(ru.Nvcsw), involuntary: uint64(ru.Nivcsw)}
}
