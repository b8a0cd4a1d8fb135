//go:build linux

package cgroup

import (
	"errors"
	"path/filepath"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/containerd/cgroups/v3/cgroup2"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// The bridge to containerd/cgroups, which does the file work of a slice:
// making its directories, writing its limits and cpuset, moving a process
// in, reading its counters, removing it. What is ours stays in slice_linux.go
// and cpuset_linux.go: names, which parents may be made or written, the
// checks before anything is made, waiting for a slice to empty, never
// killing.
//
// The library opens the files it writes by path, not beneath the mount
// point's descriptor as ours are (cgroupfs_linux.go). That is safe: the
// paths handed to it are the slice's, below a parent ParentDir resolved
// beneath the mount point, and cgroupfs holds no links to lead them out.

// v1Controller is the library's controller for the v1 hierarchy that
// holds name, mounted at mount.
//
// The library's constructors take the directory that holds every v1
// hierarchy and assume each is mounted at <that>/<controller name>
// (/sys/fs/cgroup/cpu); mountinfo says where it really is (cpu,cpuacct in
// Docker, a fixture tree in tests). So the controller is built on the
// mount point's own directory, and v1Group's paths climb from
// <dir>/<name> into the real mount point.
func v1Controller(name cgroup1.Name, mount string) cgroup1.Subsystem {
	dir := filepath.Dir(mount)
	switch name {
	case cgroup1.Cpu:
		return cgroup1.NewCpu(dir)
	case cgroup1.Cpuacct:
		return cgroup1.NewCpuacct(dir)
	case cgroup1.Cpuset:
		return cgroup1.NewCpuset(dir)
	}
	panic("cgroup: no v1 controller " + string(name))
}

// v1Mount is one v1 controller of a slice and the mount point of its
// hierarchy.
type v1Mount struct {
	name  cgroup1.Name
	mount string
}

// v1Group is the library's cgroup of the given group path (below each
// mount point) in exactly the hierarchies named, in their order: a run
// never makes a directory in a hierarchy it does not need (memory, pids,
// …), as the library's default, every mounted hierarchy, would.
func v1Group(group string, mounts []v1Mount) (hier cgroup1.Hierarchy, path cgroup1.Path) {
	at := map[cgroup1.Name]string{}
	var subsystems []cgroup1.Subsystem
	for _, m := range mounts {
		at[m.name] = m.mount
		subsystems = append(subsystems, v1Controller(m.name, m.mount))
	}
	hier = func() ([]cgroup1.Subsystem, error) { return subsystems, nil }
	path = func(name cgroup1.Name) (string, error) {
		mount, ok := at[name]
		if !ok {
			return "", cgroup1.ErrControllerNotActive
		}
		// From <dir>/<name>, where the library starts, to <mount>/<group>.
		return filepath.Join("..", filepath.Base(mount), group), nil
	}
	return hier, path
}

// newV1Group makes the cgroup group in the hierarchies of mounts with the
// resources given.
func newV1Group(group string, mounts []v1Mount, res *specs.LinuxResources) (cgroup1.Cgroup, error) {
	hier, path := v1Group(group, mounts)
	return cgroup1.New(path, res, cgroup1.WithHierarchy(hier))
}

// v1CPU is the library's form of the CFS period and quota: the period is
// written before the quota, so any period is taken by a fresh cgroup,
// whose quota is unlimited (-1).
func v1CPU(l Limits) *specs.LinuxResources {
	period := uint64(l.Period / time.Microsecond)
	quota := int64(-1)
	if l.Quota > 0 {
		quota = int64(l.Quota / time.Microsecond)
	}
	return &specs.LinuxResources{CPU: &specs.LinuxCPU{Period: &period, Quota: &quota}}
}

// v2CPUMax is the library's cpu.max for l.
func v2CPUMax(l Limits) *cgroup2.Resources {
	period := uint64(l.Period / time.Microsecond)
	var quota *int64
	if l.Quota > 0 {
		q := int64(l.Quota / time.Microsecond)
		quota = &q
	}
	return &cgroup2.Resources{CPU: &cgroup2.CPU{Max: cgroup2.NewCPUMax(quota, &period)}}
}

// loadV2 is the library's manager of the cgroup named name in the
// directory parent, which it may take for the top of the hierarchy: the
// library's ToggleControllers writes the cgroup.subtree_control of every
// directory between its top and the cgroup, and throttlebench writes only
// its own default parent's, never the real top's or a parent the user
// named.
func loadV2(parent, name string) (*cgroup2.Manager, error) {
	return cgroup2.Load("/"+name, cgroup2.WithMountpoint(parent))
}

// addProcRetry moves pid in through add. A process still being forked
// (TASK_NEW) is refused with EINVAL for a moment: retried as runc does. The
// library's v1 writer retries so itself, its v2 writer does not.
func addProcRetry(add func(uint64) error, pid int) error {
	var err error
	for range 5 {
		if err = add(uint64(pid)); !errors.Is(err, syscall.EINVAL) {
			return err
		}
		time.Sleep(30 * time.Millisecond)
	}
	return err
}

// Stat reads the slice's throttling counters: cpu.stat, read once by ours
// (Cgroup.Stat), though the library reads it too. The library cannot tell
// a counter the kernel lacks from a zero (both come back 0), which the
// JSON's null must tell, and its v1 reader skips the burst counters
// (Linux 5.14): of cpu.stat's counters it would give only some, and those
// not faithfully. The usage counter it reads well (Usage).
func (s *Slice) Stat() (CPUStat, error) { return s.Cgroup.Stat() }

// Usage is the CPU time the slice's processes have used, from the
// library's statistics: v2 usage_usec, v1 cpuacct.usage of the slice or its
// cpuacct twin. ErrNoUsage where it has neither: v1 without cpuacct, or a
// parent the user named that has no twin where cpuacct is mounted apart.
func (s *Slice) Usage() (time.Duration, error) {
	if s.m == nil {
		return s.Cgroup.Usage()
	}
	return s.m.usage()
}
