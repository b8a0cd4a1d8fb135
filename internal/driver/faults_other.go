//go:build !linux

package driver

// threadFaults: no per-thread fault counters here; faults read as 0.
func threadFaults() (minor, major uint64) { return 0, 0 }
