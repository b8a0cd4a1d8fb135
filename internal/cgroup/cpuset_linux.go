//go:build linux

package cgroup

// Cpuset is the slice's CPUs as the kernel took them ("0-3,8"), read back:
// those in force where the kernel says, else those written. "" for a slice
// without --cpuset (written by the manager's placeCpuset: on v2 the
// slice's own cpuset.cpus, on v1 its twin's in the cpuset hierarchy).
func (s *Slice) Cpuset() (string, error) {
	if s.cpuset == "" {
		return "", nil
	}
	return readCpus(s.version(), s.cgroupfsOf(s.cpuset), s.cpuset)
}
