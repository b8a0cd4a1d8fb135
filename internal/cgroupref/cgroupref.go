package cgroupref

import (
	"errors"
	"fmt"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// ErrNotPID is ParsePID's refusal.
var ErrNotPID = errors.New("not a pid")

// ParsePID reads s as a process ID: a whole number from 1, written
// plainly (no sign, no leading zeros, no blanks).
func ParsePID(s string) (int, error) {
	var pid int
	if _, err := fmt.Sscanf(s, "%d", &pid); err != nil || pid <= 0 || fmt.Sprint(pid) != s {
		return 0, ErrNotPID
	}
	return pid, nil
}

// Counted is the cgroup where spec's usage is counted: that of the
// process spec names when it is a pid, else the cgroup spec names by its
// directory or its path.
func Counted(h cgroup.Host, spec string) (cgroup.Cgroup, error) {
	if pid, err := ParsePID(spec); err == nil {
		return h.UsageCgroupOfPID(pid)
	}
	return h.UsageCgroup(spec)
}

// NoHierarchy is CPU's error where the host has no cpu hierarchy of the
// version asked; its text is the cause's.
type NoHierarchy struct{ Err error }

func (e *NoHierarchy) Error() string { return e.Err.Error() }
func (e *NoHierarchy) Unwrap() error { return e.Err }

// CPU is the cgroup at path (a cgroup's path, as Counted gives it) in the
// cpu hierarchy of the given version (0: the one the host has).
func CPU(h cgroup.Host, version int, path string) (cgroup.Cgroup, error) {
	hier, err := h.CPUHierarchy(version)
	if err != nil {
		return cgroup.Cgroup{}, &NoHierarchy{err}
	}
	return hier.At(path)
}
