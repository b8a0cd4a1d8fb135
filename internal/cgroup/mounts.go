package cgroup

import (
	"path/filepath"
	"slices"
	"strings"
)

// mountTable is this process's cgroup mounts, read once from
// root/proc/self/mountinfo: every question of which hierarchy holds a
// controller is asked of it, so that each is answered by one rule.
type mountTable struct {
	root string  // the Host's root, joined to every mount point
	all  []Mount // in mountinfo's order
}

// mounts reads this process's mount table below the root.
func (h Host) mounts() (mountTable, error) {
	data, err := readFile(h.path("/proc/self/mountinfo"))
	if err != nil {
		return mountTable{}, err
	}
	all, err := parseMountInfo(data)
	return mountTable{root: h.Root, all: all}, err
}

// v1 is the first v1 hierarchy whose controllers include ctrl: a
// controller is bound to one hierarchy, which may be mounted more than once.
func (t mountTable) v1(ctrl string) (Mount, bool) {
	for _, m := range t.all {
		if m.FSType == "cgroup" && slices.Contains(m.SuperOpts, ctrl) {
			return m, true
		}
	}
	return Mount{}, false
}

// acct is the v1 cpuacct mount that counts the cgroups of the v1 cpu
// mount cpu: the first with the same mount root (the same part of the
// tree). Without a cpu mount (ok false) it is the first cpuacct mount.
func (t mountTable) acct(cpu Mount, ok bool) (Mount, bool) {
	for _, m := range t.all {
		if m.FSType == "cgroup" && slices.Contains(m.SuperOpts, "cpuacct") && (!ok || m.Root == cpu.Root) {
			return m, true
		}
	}
	return Mount{}, false
}

// v2 are the cgroup2 mounts, in order.
func (t mountTable) v2() []Mount {
	var out []Mount
	for _, m := range t.all {
		if m.FSType == "cgroup2" {
			out = append(out, m)
		}
	}
	return out
}

// hasV1 says whether any v1 hierarchy is mounted.
func (t mountTable) hasV1() bool {
	return slices.ContainsFunc(t.all, func(m Mount) bool { return m.FSType == "cgroup" })
}

// hierarchy is the hierarchy of version mounted at m, below the root.
func (t mountTable) hierarchy(m Mount, version int) Hierarchy {
	return Hierarchy{Version: version, MountPoint: filepath.Join(t.root, m.MountPoint), MountRoot: m.Root, Root: t.root}
}

// v2Offering are the cgroup2 hierarchies whose top offers ctrl (its
// cgroup.controllers lists it), in order; a controller bound to v1 is
// never listed there.
func (t mountTable) v2Offering(ctrl string) []Hierarchy {
	var out []Hierarchy
	for _, m := range t.v2() {
		hier := t.hierarchy(m, 2)
		data, err := hier.cgroupfs().readFile(filepath.Join(hier.MountPoint, "cgroup.controllers"))
		if err == nil && slices.Contains(strings.Fields(string(data)), ctrl) {
			out = append(out, hier)
		}
	}
	return out
}

// procCgroups are the lines of one process's /proc/PID/cgroup.
type procCgroups []ProcCgroup

// procCgroup reads the cgroups of process proc ("self" or a PID) below
// the root.
func (h Host) procCgroup(proc string) (procCgroups, error) {
	data, err := readFile(h.path(filepath.Join("/proc", proc, "cgroup")))
	if err != nil {
		return nil, err
	}
	return parseProcCgroup(data)
}

// v1 is the process's cgroup path in the v1 hierarchy whose controllers
// include ctrl.
func (pc procCgroups) v1(ctrl string) (string, bool) {
	for _, l := range pc {
		if slices.Contains(l.Controllers, ctrl) {
			return l.Path, true
		}
	}
	return "", false
}

// v2 is the process's cgroup path in cgroup2: the line "0::/path".
func (pc procCgroups) v2() (string, bool) {
	for _, l := range pc {
		if l.ID == 0 && len(l.Controllers) == 0 {
			return l.Path, true
		}
	}
	return "", false
}
