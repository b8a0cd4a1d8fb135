//go:build linux

package topology

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/cpulist"
)

// Affinity is the set of CPUs the calling thread may run on
// (sched_getaffinity): the machine's online CPUs narrowed by the cpuset of
// its cgroup, a container's, taskset's. A thread inherits it from the one
// that made it, so a Go process's threads share it unless one is changed.
func Affinity() ([]int, error) {
	set := unix.NewCPUSet(cpulist.MaxCPU)
	if err := unix.SchedGetaffinityDynamic(0, set); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var out []int
	for id := 0; id <= cpulist.MaxCPU && len(out) < set.Count(); id++ {
		if set.IsSet(id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// SetAffinity confines the calling thread to cpus (sched_setaffinity). The
// caller must be locked to its OS thread (runtime.LockOSThread), or the
// setting lands on whichever thread the goroutine happens to run on.
func SetAffinity(cpus []int) error {
	set := unix.NewCPUSet(cpulist.MaxCPU)
	for _, id := range cpus {
		if id < 0 || id > cpulist.MaxCPU {
			return fmt.Errorf("sched_setaffinity: CPU %d is not within 0–%d", id, cpulist.MaxCPU)
		}
		set.Set(id)
	}
	if err := unix.SchedSetaffinityDynamic(0, set); err != nil {
		return fmt.Errorf("sched_setaffinity to CPUs %s: %w", cpulist.Format(cpus), err)
	}
	return nil
}
