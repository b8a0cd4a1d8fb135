//go:build linux

package driver

import (
	"time"

	"golang.org/x/sys/unix"
)

// fineSleep sleeps d on the kernel's high-resolution timer: Go's own
// timers wake an idle process through epoll_wait, whose timeout is whole
// milliseconds, so they come up to a millisecond late.
func fineSleep(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
