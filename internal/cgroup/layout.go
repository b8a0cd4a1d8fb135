package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Modes of a host's cgroup mounts, as systemd names them: v1 hierarchies
// only (legacy), v1 hierarchies beside a cgroup2 mount (hybrid; on our
// hosts the controllers stay on v1 and cgroup2 holds none), cgroup2 only
// (unified).
const (
	ModeV1     = "v1"
	ModeHybrid = "hybrid"
	ModeV2     = "v2"
	ModeNone   = "none"
)

// Layout is how cgroups are mounted for this process: what decides where a
// slice's limits and usage are read.
type Layout struct {
	Mode string // ModeV1, ModeHybrid, ModeV2 or ModeNone
	// Unified is where cgroup2 is mounted ("" when it is not).
	Unified string
	// CPUAcctApart says the v1 cpuacct controller is mounted on a hierarchy
	// without cpu (as on our hybrid hosts): a slice created in the cpu
	// hierarchy has no usage counter of its own there.
	CPUAcctApart bool
}

// Layout reads the mount table.
func (h Host) Layout() (Layout, error) {
	t, err := h.mounts()
	if err != nil {
		return Layout{}, err
	}
	var l Layout
	v1 := t.hasV1()
	if v2 := t.v2(); len(v2) > 0 {
		l.Unified = t.hierarchy(v2[0], 2).MountPoint
	}
	switch {
	case v1 && l.Unified != "":
		l.Mode = ModeHybrid
	case v1:
		l.Mode = ModeV1
	case l.Unified != "":
		l.Mode = ModeV2
	default:
		l.Mode = ModeNone
	}
	cpu, ok := t.v1("cpu")
	acct, ok2 := t.acct(cpu, ok)
	l.CPUAcctApart = ok && ok2 && cpu.MountPoint != acct.MountPoint
	return l, nil
}

// Cpuset is the CPU set of the calling process's cgroup in the cpuset
// controller's hierarchy: v1's cpuset hierarchy (often mounted apart from
// cpu), or cgroup2.
type Cpuset struct {
	// Cgroup is the cgroup the files were read from: on v2 the nearest
	// of the process's cgroup and its ancestors that has them (a cgroup
	// whose parent did not enable +cpuset inherits its parent's set).
	Cgroup
	// CPUs is cpuset.cpus as written, in the kernel's list format; on v2 ""
	// means none was written and the parent's set applies.
	CPUs string
	// Effective is the set the kernel lets the processes use (v1
	// cpuset.effective_cpus, v2 cpuset.cpus.effective).
	Effective string
}

// SelfCpuset reads the cpuset of the calling process's cgroup. A v1 cpuset
// hierarchy wins over cgroup2, as a controller bound to v1 is absent from
// cgroup2.
func (h Host) SelfCpuset() (Cpuset, error) {
	t, err := h.mounts()
	if err != nil {
		return Cpuset{}, err
	}
	lines, err := h.procCgroup("self")
	if err != nil {
		return Cpuset{}, err
	}
	if m, ok := t.v1("cpuset"); ok {
		p, ok := lines.v1("cpuset")
		if !ok {
			return Cpuset{}, fmt.Errorf("%w: no cpuset line in /proc/self/cgroup", ErrNoCpuset)
		}
		cg, err := t.hierarchy(m, 1).At(p)
		if err != nil {
			return Cpuset{}, err
		}
		cpus, err := readTrimmed(cg.cgroupfs(), filepath.Join(cg.Dir, "cpuset.cpus"))
		if err != nil {
			return Cpuset{}, err
		}
		// cpuset.effective_cpus came with Linux 4.3; before it the
		// written set was the one in force.
		eff, err := readTrimmed(cg.cgroupfs(), filepath.Join(cg.Dir, "cpuset.effective_cpus"))
		if errors.Is(err, os.ErrNotExist) {
			eff, err = cpus, nil
		}
		return Cpuset{Cgroup: cg, CPUs: cpus, Effective: eff}, err
	}
	p, ok := lines.v2()
	for _, hier := range t.v2Offering("cpuset") {
		if !ok {
			break
		}
		cg, err := hier.At(p)
		if err != nil {
			return Cpuset{}, err
		}
		for {
			eff, err := readTrimmed(cg.cgroupfs(), filepath.Join(cg.Dir, "cpuset.cpus.effective"))
			if err == nil {
				cpus, err := readTrimmed(cg.cgroupfs(), filepath.Join(cg.Dir, "cpuset.cpus"))
				if errors.Is(err, os.ErrNotExist) { // the root cgroup has no cpuset.cpus
					cpus, err = "", nil
				}
				return Cpuset{Cgroup: cg, CPUs: cpus, Effective: eff}, err
			}
			if !errors.Is(err, os.ErrNotExist) {
				return Cpuset{}, err
			}
			if cg.Dir == hier.MountPoint {
				break
			}
			cg = hier.atDir(filepath.Dir(cg.Dir))
		}
	}
	return Cpuset{}, fmt.Errorf("%w for this cgroup or its ancestors", ErrNoCpuset)
}

// atDir is the cgroup of this hierarchy at directory dir, which must be
// the mount point or below it.
func (hier Hierarchy) atDir(dir string) Cgroup {
	rel := strings.TrimPrefix(strings.TrimPrefix(dir, hier.MountPoint), "/")
	return Cgroup{Hierarchy: hier, Path: path.Join("/", hier.MountRoot, rel), Dir: dir}
}

// BurstSupport says whether the kernel offers a CFS burst (Linux 5.14:
// v1 cpu.cfs_burst_us, v2 cpu.max.burst), and file is where that was seen:
// the nearest of c and its ancestors that has the bandwidth files, else
// (the v2 root cgroup has none) a child of the mount point that has them.
// known is false when no cgroup in sight has bandwidth files at all.
func (c Cgroup) BurstSupport() (supported, known bool, file string) {
	bandwidth, burst := c.version().bandwidthFiles()
	look := func(dir string) (bool, bool, string) {
		if _, err := os.Stat(filepath.Join(dir, bandwidth)); err != nil {
			return false, false, ""
		}
		f := filepath.Join(dir, burst)
		_, err := os.Stat(f)
		return err == nil, true, f
	}
	for dir := c.Dir; ; dir = filepath.Dir(dir) {
		if ok, known, f := look(dir); known {
			return ok, true, f
		}
		if dir == c.MountPoint || !strings.HasPrefix(dir, c.MountPoint+"/") {
			break
		}
	}
	entries, err := os.ReadDir(c.MountPoint)
	if err != nil {
		return false, false, ""
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if ok, known, f := look(filepath.Join(c.MountPoint, e.Name())); known {
			return ok, true, f
		}
	}
	return false, false, ""
}

// readTrimmed reads a one-line cgroup file, below fs's mount point,
// without its newline.
func readTrimmed(fs cgroupfs, p string) (string, error) {
	b, err := fs.readFile(p)
	return strings.TrimSpace(string(b)), err
}
