//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/containerd/cgroups/v3/cgroup2"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/throttlebench/throttlebench/internal/topology"
)

// The cpuset of a slice (--cpuset), written through containerd/cgroups.
//
// On v2 the slice's own cpuset.cpus, once its parent enables the cpuset
// controller for its children: throttlebench enables it only in its own
// default parent; a parent the user names must have it already, and so
// must the top of the hierarchy for the default parent (checkV2Parent).
//
// On v1 the cpuset controller has a hierarchy of its own (beside cpu, at
// /sys/fs/cgroup/cpuset on our hosts): the slice gets a twin there, of the
// same name under the same parent path, and its process is moved into both.
// A fresh v1 cpuset has no CPUs and no memory nodes, and refuses tasks until
// it has both: the library's cpuset controller copies them from the parent
// into each cpuset it makes that has none (the default parent's twin, made
// like the default parent itself; the slice's twin), then writes the CPUs
// asked. A parent the user names must have its twin, with both, already.
// Where v1 mounts cpu and cpuset together the slice is its own twin.

// checkCpusetParent refuses, before anything is made, a parent the user
// named that cannot hold a cpuset of its children's own (v1; v2's parents
// are checkV2Parent's).
func checkCpusetParent(spec SliceSpec) error {
	cs := spec.Cpuset
	if cs.Hier.Version == 2 {
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
	cpus, _, mems := cpusetFiles(1)
	for _, f := range []struct{ name, what string }{{mems, "memory nodes"}, {cpus, "CPUs"}} {
		data, err := readFile(filepath.Join(cs.Parent, f.name))
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

// placeCpuset gives the slice, called name, the CPUs asked: on v2 in its
// own cpuset.cpus; on v1 in its twin in the cpuset hierarchy, or in
// itself where cpu and cpuset are mounted together.
func (s *Slice) placeCpuset(spec SliceSpec, name string) error {
	cs := spec.Cpuset
	list := topology.FormatList(cs.CPUs)
	if cs.Hier.Version == 2 {
		if err := s.v2.Update(&cgroup2.Resources{CPU: &cgroup2.CPU{Cpus: list}}); err != nil {
			return fmt.Errorf("write CPUs %s to %s: %w", list, filepath.Join(s.Dir, "cpuset.cpus"), err)
		}
		s.cpuset = s.Dir
		return nil
	}
	own := filepath.Join(cs.Parent, name)
	group := "/" + strings.TrimPrefix(strings.TrimPrefix(own, cs.Hier.MountPoint), "/")
	res := &specs.LinuxResources{CPU: &specs.LinuxCPU{Cpus: list}}
	cg, err := newV1Group(group, []v1Mount{{cgroup1.Cpuset, cs.Hier.MountPoint}}, res)
	if own != s.Dir {
		// Made (or half made) apart from the slice: removed with it.
		s.twin = own
	}
	if err != nil {
		return fmt.Errorf("write CPUs %s to %s: %w", list, filepath.Join(own, "cpuset.cpus"), err)
	}
	if s.twin != "" {
		s.v1Twin = cg
	}
	s.cpuset = own
	return nil
}

// Cpuset is the slice's CPUs as the kernel took them ("0-3,8"), read back:
// those in force where the kernel says, else those written. "" for a slice
// without --cpuset.
func (s *Slice) Cpuset() (string, error) {
	if s.cpuset == "" {
		return "", nil
	}
	return readCpus(s.Version, s.cpuset)
}
