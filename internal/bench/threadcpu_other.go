//go:build !unix

package bench

import "time"

// threadCPU is unknown where there is no per-thread CPU clock.
func threadCPU() time.Duration { return 0 }

// processCPU: unknown here too.
func processCPU() time.Duration { return 0 }
