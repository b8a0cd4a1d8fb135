package cgroup

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// v2 is cgroup v2: one tree, the usage counter in cpu.stat, a child's
// controllers enabled by its parent's cgroup.subtree_control.
type v2 struct{}

func (v2) line(pc procCgroups, _ string) (string, bool) { return pc.v2() }

func (v2) limitFiles() []limitFile {
	return []limitFile{
		{"cpu.max", func(l *Limits, b []byte) (err error) { l.Quota, l.Period, err = parseCPUMax(b); return }},
		{"cpu.max.burst", micros(func(l *Limits) *time.Duration { return &l.Burst })},
	}
}

func (v2) bandwidthFiles() (string, string) { return "cpu.max", "cpu.max.burst" }

func (v2) weightFile() (string, func(uint64) int) {
	return "cpu.weight", func(w uint64) int { return int(w) }
}

func (v2) usageFile() string { return "cpu.stat" }

func (v2) parseUsage(data []byte) (time.Duration, error) { return parseUsageUsec(data) }

func (v2) usageInPlace(data []byte) (time.Duration, error) { return usageUsecOf(data) }

func (v2) usageCounter() string { return "cpu.stat usage_usec" }

func (v2) hostTopMark() (string, bool) { return "cgroup.type", false }

func (v2) noCounter(cgPath, dir string) error {
	return fmt.Errorf("%w: cgroup %s does not exist (no directory %s)", ErrNoCgroup, cgPath, dir)
}

func (v2) cpusetFiles() (string, string, string) {
	return "cpuset.cpus", "cpuset.cpus.effective", "cpuset.mems"
}

// cpusets are in the cpu hierarchy itself, when its top offers the
// controller.
func (v2) cpusets(_ Host, cpu Hierarchy) (Hierarchy, error) {
	ctrl, err := cpu.cgroupfs().readFile(filepath.Join(cpu.MountPoint, "cgroup.controllers"))
	if err != nil {
		return Hierarchy{}, err
	}
	if !slices.Contains(strings.Fields(string(ctrl)), "cpuset") {
		return Hierarchy{}, fmt.Errorf("%w: %s offers no cpuset controller (cgroup.controllers: %q)",
			ErrNoCpuset, cpu.MountPoint, strings.TrimSpace(string(ctrl)))
	}
	return cpu, nil
}

// accounting is cg itself: every v2 cgroup has usage_usec.
func (v2) accounting(_ Host, cg Cgroup) (Cgroup, error) { return cg, nil }

// topRefuses a top whose cgroup.subtree_control does not enable cpu:
// throttlebench writes no cgroup.subtree_control but its own default
// parent's.
func (v2) topRefuses(hier Hierarchy) string {
	sub := filepath.Join(hier.MountPoint, "cgroup.subtree_control")
	ctrl, err := hier.cgroupfs().readFile(sub)
	if err != nil {
		return fmt.Sprintf("cannot read %s: %v", sub, err)
	}
	if !slices.Contains(strings.Fields(string(ctrl)), "cpu") {
		return fmt.Sprintf("%s does not enable cpu for its children, and throttlebench changes no cgroup it did not create (echo +cpu > %s, where the kernel allows it)", sub, sub)
	}
	return ""
}
