package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/throttlebench/throttlebench/internal/cpulist"
)

// ErrNoCpuset says the cpuset controller is not there: no v1 hierarchy
// offers it, or (v2) it is not enabled for the cgroup in question.
var ErrNoCpuset = errors.New("no cpuset controller")

// CpusetSpec places a slice's processes on a set of CPUs through the
// cpuset controller (--cpuset).
type CpusetSpec struct {
	// Hier is where the cpusets live (Host.CpusetHierarchy): the cpu
	// hierarchy itself on v2 and where v1 mounts cpu and cpuset together,
	// else v1's own cpuset hierarchy, where the slice gets a twin.
	Hier Hierarchy
	// Parent is the slice's parent there: TwinDir of SliceSpec.Parent.
	Parent string
	CPUs   []int
}

// CpusetHierarchy finds where the cpusets of slices in the cpu hierarchy
// cpu live: cpu itself on v2 (when its top offers the controller) and where
// v1 mounts cpu and cpuset together; else v1's own cpuset hierarchy, beside
// cpu (/sys/fs/cgroup/cpuset on our hosts).
func (h Host) CpusetHierarchy(cpu Hierarchy) (Hierarchy, error) {
	return cpu.version().cpusets(h, cpu)
}

// Separate says whether cpusets live in a hierarchy of their own, apart
// from cpu's: v1 with cpuset mounted alone.
func (cpu Hierarchy) Separate(cpuset Hierarchy) bool { return cpuset.MountPoint != cpu.MountPoint }

// TwinDir is dir of the cpu hierarchy at the same place in the cpuset
// hierarchy: the same path below its mount point. Where they are one
// hierarchy it is dir itself.
func (cpu Hierarchy) TwinDir(cpuset Hierarchy, dir string) string {
	if !cpu.Separate(cpuset) {
		return dir
	}
	rel := strings.TrimPrefix(filepath.Clean(dir), filepath.Clean(cpu.MountPoint))
	return filepath.Join(cpuset.MountPoint, rel)
}

// AcctApart says v1 mounts cpuacct on a hierarchy of its own, apart from
// cpu's: a slice then has a twin there for its usage counter.
func (cpu Hierarchy) AcctApart() bool { return cpu.Acct != "" && cpu.Acct != cpu.MountPoint }

// TwinParents is the one rule of where parent's twins are: parent (a
// directory of the cpu hierarchy) at the same place in each v1 hierarchy
// that a slice has twins in, kept apart from cpu's: cpuacct's where
// AcctApart, and cpusets' (nil where there is none) where Separate. Stale
// slices are tidied there too, and the default parent's twins removed.
func (cpu Hierarchy) TwinParents(parent string, cpusets *Hierarchy) []string {
	var twins []string
	if cpu.AcctApart() {
		twins = append(twins, cpu.TwinDir(Hierarchy{MountPoint: cpu.Acct}, parent))
	}
	if cpusets != nil && cpu.Separate(*cpusets) {
		twins = append(twins, cpu.TwinDir(*cpusets, parent))
	}
	return twins
}

// readCpus reads the CPUs in force in the cpuset at dir, below fs's mount
// point, as the kernel writes them ("0-3,8"): the effective ones where the
// kernel has the file, else those asked for.
func readCpus(v version, fs cgroupfs, dir string) (string, error) {
	cpus, effective, _ := v.cpusetFiles()
	data, err := fs.readFile(filepath.Join(dir, effective))
	if errors.Is(err, os.ErrNotExist) {
		data, err = fs.readFile(filepath.Join(dir, cpus))
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// CpusetCPUs are the CPUs a cpuset created at dir could be given: those in
// force in dir's nearest existing ancestor (or dir itself) within the
// hierarchy that has cpuset files; empty, not nil, where that cpuset has
// none (a v1 cpuset not set up). Nothing is created or changed.
func (hier Hierarchy) CpusetCPUs(dir string) ([]int, error) {
	for d := filepath.Clean(dir); hier.contains(d); d = filepath.Dir(d) {
		s, err := readCpus(hier.version(), hier.cgroupfs(), d)
		if errors.Is(err, os.ErrNotExist) {
			if d == hier.MountPoint {
				break
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		cpus, err := cpulist.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		if cpus == nil {
			// A v1 cpuset may have none: known, and empty.
			cpus = []int{}
		}
		return cpus, nil
	}
	return nil, fmt.Errorf("%w: no cpuset files in %s or above it", ErrNoCpuset, dir)
}
