//go:build !linux

package driver

import "time"

// fineSleep is time.Sleep where there is no finer sleep to call.
func fineSleep(d time.Duration) { time.Sleep(d) }
