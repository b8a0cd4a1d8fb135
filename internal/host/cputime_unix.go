//go:build unix

package host

import (
	"time"

	"golang.org/x/sys/unix"
)

// ProcessCPU is the CPU time of the calling process, all its threads, to
// the nanosecond.
func ProcessCPU() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0, err
	}
	return time.Duration(ts.Nano()), nil
}
