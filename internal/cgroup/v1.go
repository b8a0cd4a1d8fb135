package cgroup

import (
	"bytes"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
)

// v1 is cgroup v1: each controller in a hierarchy of its own or shared
// (cpu,cpuacct), the usage counter in cpuacct's, cpusets in cpuset's.
type v1 struct{}

func (v1) line(pc procCgroups, ctrl string) (string, bool) { return pc.v1(ctrl) }

func (v1) limitFiles() []limitFile {
	return []limitFile{
		{"cpu.cfs_period_us", micros(func(l *Limits) *time.Duration { return &l.Period })},
		{"cpu.cfs_quota_us", micros(func(l *Limits) *time.Duration { return &l.Quota })},
		{"cpu.cfs_burst_us", micros(func(l *Limits) *time.Duration { return &l.Burst })},
	}
}

// weightFile: cpu.shares on the kernel's own scale, 1024 the default; the
// kernel shows v2's cpu.weight as weight × 100 / 1024, rounded, and at
// least 1 (v1's least, 2, is below v2's).
func (v1) weightFile() (string, func(uint64) int) {
	return "cpu.shares", func(s uint64) int { return max(1, int((s*100+512)/1024)) }
}

func (v1) bandwidthFiles() (string, string) { return "cpu.cfs_period_us", "cpu.cfs_burst_us" }

func (v1) usageFile() string { return "cpuacct.usage" }

func (v1) parseUsage(data []byte) (time.Duration, error) {
	ns, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 63)
	if err != nil {
		return 0, fmt.Errorf("%w: cpuacct.usage: %q", ErrParse, data)
	}
	return time.Duration(ns), nil
}

func (v1) usageInPlace(data []byte) (time.Duration, error) {
	ns, ok := parseDecimal(bytes.TrimSpace(data), math.MaxInt64)
	if !ok {
		return 0, fmt.Errorf("%w: cpuacct.usage: %q", ErrParse, data)
	}
	return time.Duration(ns), nil
}

func (v1) usageCounter() string { return "cpuacct.usage" }

func (v1) hostTopMark() (string, bool) { return "release_agent", true }

func (v1) noCounter(cgPath, dir string) error {
	return fmt.Errorf("%w: cgroup %s has no cpuacct cgroup (no directory %s), so its CPU usage is not counted apart", ErrNoCgroup, cgPath, dir)
}

// cpusetFiles: v1 names the CPUs in force cpuset.effective_cpus.
func (v1) cpusetFiles() (string, string, string) {
	return "cpuset.cpus", "cpuset.effective_cpus", "cpuset.mems"
}

// cpusets are in v1's cpuset hierarchy: cpu's own where they are mounted
// together, else one beside it (/sys/fs/cgroup/cpuset on our hosts).
func (v1) cpusets(h Host, _ Hierarchy) (Hierarchy, error) {
	t, err := h.mounts()
	if err != nil {
		return Hierarchy{}, err
	}
	if m, ok := t.v1("cpuset"); ok {
		return t.hierarchy(m, 1), nil
	}
	return Hierarchy{}, fmt.Errorf("%w (cgroup v1)", ErrNoCpuset)
}

// accounting: cg itself where cpu and cpuacct share a hierarchy. Where v1
// mounts cpuacct apart (as on our hybrid hosts, cg's Acct) it is the
// process's cgroup in the cpuacct hierarchy, but only when that has the
// same path as cg: a cpuacct cgroup of another name groups other
// processes, and its usage would blame them on cg.
func (v1) accounting(h Host, cg Cgroup) (Cgroup, error) {
	switch {
	case cg.Acct == "":
		return Cgroup{}, fmt.Errorf("%w: no cgroup v1 hierarchy with the cpuacct controller", ErrNoUsage)
	case cg.Acct == cg.MountPoint:
		return cg, nil
	}
	// Acct has cg's mount root (mountTable.acct).
	acct := Hierarchy{Version: 1, MountPoint: cg.Acct, MountRoot: cg.MountRoot, Root: cg.Root}
	lines, err := h.procCgroup("self")
	if err != nil {
		return Cgroup{}, err
	}
	p, ok := lines.v1("cpuacct")
	if !ok {
		return Cgroup{}, fmt.Errorf("%w: no cpuacct line in /proc/self/cgroup", ErrNoUsage)
	}
	if path.Clean("/"+p) != cg.Path {
		return Cgroup{}, fmt.Errorf("%w: the cpuacct cgroup %s is not the cpu cgroup %s", ErrNoUsage, p, cg.Path)
	}
	return acct.At(p)
}

// topRefuses nothing: a v1 child has the cpu files of its hierarchy.
func (v1) topRefuses(Hierarchy) string { return "" }
