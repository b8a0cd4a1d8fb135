package runner

import (
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// Cgroups is what a run needs of the cgroup filesystem.
type Cgroups interface {
	// CPUHierarchy finds the hierarchy that holds the cpu controller.
	CPUHierarchy(h cgroup.Host, version int) (cgroup.Hierarchy, error)
	// CpusetHierarchy finds where the cpusets of cpu's slices live.
	CpusetHierarchy(h cgroup.Host, cpu cgroup.Hierarchy) (cgroup.Hierarchy, error)
	// ParentDir resolves a parent the user named to an existing directory.
	ParentDir(hier cgroup.Hierarchy, p string) (string, error)
	// CleanStale removes the empty slices of runs that no longer live
	// from parent, a directory of hier or of one of its twins.
	CleanStale(hier cgroup.Hierarchy, parent string) (removed []string, skipped []cgroup.Skipped, err error)
	// CreateSlice creates a slice with its limits; on error nothing is left.
	CreateSlice(hier cgroup.Hierarchy, spec cgroup.SliceSpec) (Slice, error)
	// RemoveDefaultParent removes the default parent if no slice is left in it.
	RemoveDefaultParent(hier cgroup.Hierarchy)
	// Self is the process's own cgroup in the cpu hierarchy.
	Self(h cgroup.Host, version int) (Current, error)
}

// Group is a cgroup whose limits and counters a run reads.
type Group interface {
	Cgroup() cgroup.Cgroup // its version, path and directory, for the report
	Limits() (cgroup.Limits, error)
	Chain() ([]cgroup.Level, error)
	Stat() (cgroup.CPUStat, error)
}

// Slice is a cgroup created for one run.
type Slice interface {
	Group
	AddProc(pid int) error
	Delete() error
	// KillLeft kills what is left in the slice but except (the workload
	// child, or 0: what a command left behind) and says how many.
	KillLeft(except int) (int, error)
	// Usage is the slice's CPU usage counter (v2 usage_usec, v1
	// cpuacct.usage where cpuacct shares the cpu hierarchy); an error
	// where it has none (v1 with cpuacct mounted apart).
	Usage() (time.Duration, error)
	// Cpuset is its CPUs as the kernel took them; "" without a cpuset.
	Cpuset() (string, error)
}

// Current is the process's own cgroup.
type Current interface {
	Group
	// Usage is the CPU time of every process in the cgroup; an error when
	// it is not known.
	Usage() (time.Duration, error)
}
