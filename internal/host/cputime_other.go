//go:build !unix

package host

import (
	"errors"
	"time"
)

// ProcessCPU is unknown here.
func ProcessCPU() (time.Duration, error) { return 0, errors.New("no process CPU clock on this system") }
