//go:build !linux

package driver

import "time"

// sleepUntilMono is time.Sleep where there is no absolute sleep to call.
func sleepUntilMono(mono int64) {
	if d := time.Duration(mono - Monotonic()); d > 0 {
		time.Sleep(d)
	}
}

// preciseTimers does nothing where there is no timer slack to set.
func preciseTimers() (restore func()) { return func() {} }

// threadID is 0 where no thread can be interrupted.
func threadID() int { return 0 }

// interruptThread does nothing: a sleep ends within fineSleepMax.
func interruptThread(int) {}
