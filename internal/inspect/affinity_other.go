//go:build !linux

package inspect

import "errors"

// Affinity is unknown here.
func Affinity() ([]int, error) { return nil, errors.New("no CPU affinity on this system") }
