//go:build linux

package inspect

import "golang.org/x/sys/unix"

// Affinity is the set of CPUs this process may run on (sched_getaffinity),
// which a cpuset and taskset narrow.
func Affinity() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var out []int
	for id := range len(set) * 64 {
		if set.IsSet(id) {
			out = append(out, id)
		}
	}
	return out, nil
}
