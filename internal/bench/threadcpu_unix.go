//go:build unix && !linux

package bench

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the calling thread's CPU time. The caller must be locked to
// its OS thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// processCPU is the whole process's CPU time, every thread of it; 0 where
// it cannot be read.
func processCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
