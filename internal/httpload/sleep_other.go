//go:build !linux

package httpload

import "time"

// sleepUntil is time.Sleep where there is no absolute sleep to call.
func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

// monotonic is the wall clock where CLOCK_MONOTONIC cannot be read.
func monotonic() int64 { return time.Now().UnixNano() }
