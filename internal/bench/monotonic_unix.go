//go:build unix

package bench

import (
	"time"

	"golang.org/x/sys/unix"
)

// Monotonic is CLOCK_MONOTONIC in nanoseconds: one clock for every
// process on the machine, so that an instance's stamps and the parent's
// can be subtracted.
func Monotonic() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return time.Now().UnixNano()
	}
	return ts.Nano()
}
