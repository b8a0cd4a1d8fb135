//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/throttlebench/throttlebench/internal/cpulist"
)

// v1Slice is a slice on cgroup v1, through containerd/cgroups' cgroup1:
// the slice in the cpu hierarchy and, where cpuacct is mounted apart, its
// twin there (Slice.acct), one library cgroup; with --cpuset on v1's own
// cpuset hierarchy, its twin there (Slice.twin), another.
//
// A fresh v1 cpuset has no CPUs and no memory nodes, and refuses tasks
// until it has both: the library's cpuset controller copies them from the
// parent into each cpuset it makes that has none (the default parent's
// twin, made like the default parent itself; the slice's twin), then
// writes the CPUs asked. A parent the user names must have its twin, with
// both, already. Where v1 mounts cpu and cpuset together the slice is its
// own twin.
type v1Slice struct {
	dir    string
	cg     cgroup1.Cgroup
	twin   cgroup1.Cgroup // the cpuset twin's; nil when none
	counts bool           // the slice has a cpuacct cgroup: its own, or its twin
}

// check refuses, before anything is made, a parent the user named that
// cannot hold a cpuset of its children's own.
func (m *v1Slice) check(spec SliceSpec) error {
	cs := spec.Cpuset
	if cs == nil {
		return nil
	}
	// The library's cpuset controller starts from <dir>/cpuset and copies
	// the CPUs and nodes down every level from there (v1Controller).
	if filepath.Base(cs.Hier.MountPoint) != string(cgroup1.Cpuset) {
		return &ParentError{Given: spec.Parent, Reason: fmt.Sprintf(
			"--cpuset on cgroup v1 needs the cpuset controller mounted alone, at a directory named cpuset; here it is mounted at %s", cs.Hier.MountPoint)}
	}
	if spec.CreateParent {
		return nil
	}
	// A v1 cpuset without memory nodes or CPUs takes no process, and its
	// children can have none either.
	cpus, _, mems := v1{}.cpusetFiles()
	for _, f := range []struct{ name, what string }{{mems, "memory nodes"}, {cpus, "CPUs"}} {
		data, err := cs.Hier.cgroupfs().readFile(filepath.Join(cs.Parent, f.name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return &ParentError{Given: spec.Parent, Reason: fmt.Sprintf(
				"--cpuset needs the parent's twin %s in the cpuset hierarchy; create it with its cpuset.cpus and cpuset.mems, or leave out --parent", cs.Parent)}
		case err != nil:
			return err
		case strings.TrimSpace(string(data)) == "":
			return &ParentError{Given: spec.Parent, Reason: fmt.Sprintf(
				"--cpuset needs %s in the parent's twin %s: its %s is empty; write cpuset.mems and cpuset.cpus first, or leave out --parent", f.what, cs.Parent, f.name)}
		}
	}
	return nil
}

// setUp writes the slice's CFS period and quota (in the default parent,
// after the parent's cpu.shares: DefaultParentWeight) and, where cpuacct is
// mounted apart, makes its twin there, for the slice's own usage counter:
// only in the default parent (ours) or in a parent the user named that has
// a twin there already; a parent's twin is never made for a parent the
// user named, and the slice's usage then falls back to the workload's own
// CPU clock.
func (m *v1Slice) setUp(s *Slice, spec SliceSpec, group, _ string) error {
	mounts := []v1Mount{{cgroup1.Cpu, s.MountPoint}}
	if s.Acct == s.MountPoint {
		mounts = append(mounts, v1Mount{cgroup1.Cpuacct, s.Acct})
	} else if s.AcctApart() {
		twinParent := s.TwinParents(filepath.Clean(spec.Parent), nil)[0]
		if _, err := os.Stat(twinParent); err == nil || spec.CreateParent {
			mounts = append(mounts, v1Mount{cgroup1.Cpuacct, s.Acct})
			s.acct = filepath.Join(s.Acct, group)
		}
	}
	if spec.CreateParent {
		// The default parent's weight (DefaultParentWeight), in cpu.shares.
		shares := uint64(DefaultParentWeight) * 1024 / 100
		parent := "/" + strings.TrimPrefix(strings.TrimPrefix(filepath.Clean(spec.Parent), s.MountPoint), "/")
		res := &specs.LinuxResources{CPU: &specs.LinuxCPU{Shares: &shares}}
		if _, err := newV1Group(parent, mounts[:1], res); err != nil {
			return fmt.Errorf("weigh the default parent %s: %w", spec.Parent, err)
		}
	}
	cg, err := newV1Group(group, mounts, v1CPU(spec.Limits))
	if err != nil {
		return err
	}
	m.dir, m.cg = s.Dir, cg
	m.counts = s.acct != "" || s.Acct == s.MountPoint && s.Acct != ""
	return nil
}

// placeCpuset gives the slice, called name, the CPUs asked in its twin in
// the cpuset hierarchy, or in itself where cpu and cpuset are mounted
// together.
func (m *v1Slice) placeCpuset(s *Slice, spec SliceSpec, name string) error {
	cs := spec.Cpuset
	list := cpulist.Format(cs.CPUs)
	own := filepath.Join(cs.Parent, name)
	group := "/" + strings.TrimPrefix(strings.TrimPrefix(own, cs.Hier.MountPoint), "/")
	res := &specs.LinuxResources{CPU: &specs.LinuxCPU{Cpus: list}}
	cg, err := newV1Group(group, []v1Mount{{cgroup1.Cpuset, cs.Hier.MountPoint}}, res)
	if own != s.Dir {
		// Made (or half made) apart from the slice: removed with it.
		s.twin, s.twinMount = own, cs.Hier.MountPoint
	}
	if err != nil {
		return fmt.Errorf("write CPUs %s to %s: %w", list, filepath.Join(own, "cpuset.cpus"), err)
	}
	if s.twin != "" {
		m.twin = cg
	}
	s.cpuset = own
	return nil
}

// addProc moves the process into the cpuset twin first, where there is
// one, which sets the threads' CPU affinity, then into the slice (and its
// cpuacct twin).
func (m *v1Slice) addProc(pid int) error {
	if m.twin != nil {
		if err := addProcRetry(func(p uint64) error { return m.twin.AddProc(p) }, pid); err != nil {
			return err
		}
	}
	return addProcRetry(func(p uint64) error { return m.cg.AddProc(p) }, pid)
}

// usage is cpuacct.usage of the slice or its cpuacct twin, from the
// library's statistics.
func (m *v1Slice) usage() (time.Duration, error) {
	if !m.counts {
		return 0, fmt.Errorf("%w: no cpuacct twin of %s", ErrNoUsage, m.dir)
	}
	st, err := m.cg.Stat()
	if err != nil {
		return 0, fmt.Errorf("read the usage of %s: %w", m.dir, err)
	}
	return time.Duration(st.GetCPU().GetUsage().GetTotal()), nil
}

// remove is the library's removal of the slice and its cpuacct twin; one
// gone already is no error.
func (m *v1Slice) remove() error {
	if err := m.cg.Delete(); !errors.Is(err, cgroup1.ErrCgroupDeleted) {
		return err
	}
	return nil
}

// removeTwin removes the cpuset twin at dir: through the library where it
// was made whole, else (half made) as an empty directory.
func (m *v1Slice) removeTwin(fs cgroupfs, dir string) error {
	if m.twin == nil {
		return rmdirEmpty(fs, dir)
	}
	if err := m.twin.Delete(); !errors.Is(err, cgroup1.ErrCgroupDeleted) {
		return err
	}
	return nil
}
