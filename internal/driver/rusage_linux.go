//go:build linux

package driver

import "golang.org/x/sys/unix"

// threadUsage is the calling thread's counters so far, from one
// getrusage(RUSAGE_THREAD): its page faults, minor (no I/O: a fresh page
// allocated, or one found in the page cache) and major (read from disk),
// and its context switches, voluntary (it blocked: a sleep, a lock) and
// involuntary (the scheduler took the CPU away: a higher-priority task, the
// end of its slice, throttling). The caller must be locked to its OS
// thread. On error all read 0.
func threadUsage() threadCounters {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return threadCounters{}
	}
	return threadCounters{minor: uint64(ru.Minflt), major: uint64(ru.Majflt),
		voluntary: uint64(ru.Nvcsw), involuntary: uint64(ru.Nivcsw)}
}
