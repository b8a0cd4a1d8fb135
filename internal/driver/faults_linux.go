//go:build linux

package driver

import "golang.org/x/sys/unix"

// threadFaults are the calling thread's page faults so far, minor (no I/O:
// a fresh page allocated, or one found in the page cache) and major (read
// from disk). The caller must be locked to its OS thread.
func threadFaults() (minor, major uint64) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0, 0
	}
	return uint64(ru.Minflt), uint64(ru.Majflt)
}
