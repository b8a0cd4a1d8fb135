//go:build !linux

package httpload

import "time"

// shortSlice does nothing where there is no custom slice to set.
func shortSlice(time.Duration) (restore func()) { return func() {} }
