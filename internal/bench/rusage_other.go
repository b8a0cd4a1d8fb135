//go:build !linux

package bench

// threadUsage: no per-thread counters here; faults and context switches
// read as 0.
func threadUsage() threadCounters { return threadCounters{} }

// processUsage: none either.
func processUsage() threadCounters { return threadCounters{} }
