//go:build !unix

package bench

import (
	"time"
)

// processStart anchors Monotonic where there is no CLOCK_MONOTONIC to read.
var processStart = time.Now()

// Monotonic is the time since this process started: instances and their
// parent then cannot be compared, but nothing runs them here (Linux only).
func Monotonic() int64 { return int64(time.Since(processStart)) }
