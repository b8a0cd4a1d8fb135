//go:build !linux

package host

import (
	"errors"
	"time"
)

// PIDCPU is unknown here.
func PIDCPU(int) (time.Duration, error) { return 0, errors.New("no process CPU clock on this system") }
