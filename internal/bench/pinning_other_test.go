//go:build !linux

package bench

import "testing"

// threadAffinities is Linux's (TestPinOnThisMachine skips elsewhere).
func threadAffinities(*testing.T) map[int][]int { return nil }
