//go:build !linux

package topology

import "errors"

var errNoAffinity = errors.New("CPU affinity is read and set on Linux only")

// Affinity is not known here.
func Affinity() ([]int, error) { return nil, errNoAffinity }

// SetAffinity cannot be done here.
func SetAffinity([]int) error { return errNoAffinity }
