//go:build !linux

package driver

// getCPU: no getcpu here; no CPU is recorded.
func getCPU() int { return -1 }

// threadMigrations: no kernel count here; migrations come from the
// sampled CPUs, which are none.
func threadMigrations() (uint64, bool) { return 0, false }
