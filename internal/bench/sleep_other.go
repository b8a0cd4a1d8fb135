//go:build !linux

package bench

import "time"

// sleepUntilMono is time.Sleep where there is no absolute sleep to call.
func sleepUntilMono(mono int64) {
	if d := time.Duration(mono - Monotonic()); d > 0 {
		time.Sleep(d)
	}
}

// preciseTimers does nothing where there is no timer slack to set.
func preciseTimers() (restore func()) { return func() {} }
