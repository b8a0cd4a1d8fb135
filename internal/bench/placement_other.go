//go:build !linux

package bench

// getCPU: no getcpu here; no CPU is recorded.
func getCPU() int { return -1 }

// gettid: no thread ids here; a lone worker reads 0 on every thread, as
// its counters read 0 too.
func gettid() int { return 0 }

// schedFile: no kernel count here; migrations come from the sampled CPUs,
// which are none.
type schedFile struct{}

func (*schedFile) migrations() (uint64, bool) { return 0, false }
