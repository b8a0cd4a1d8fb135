//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/containerd/cgroups/v3/cgroup2"

	"github.com/throttlebench/throttlebench/internal/cpulist"
)

// v2Slice is a slice on cgroup v2, through containerd/cgroups' cgroup2
// manager. Its cpu.max and, with --cpuset, its own cpuset.cpus are there
// once its parent enables the controllers for its children: throttlebench
// enables them only in its own default parent; a parent the user names
// must have them already, and so must the top of the hierarchy for the
// default parent (check).
type v2Slice struct {
	cgfs cgroupfs // the hierarchy's, for check's reading
	dir  string
	m    *cgroup2.Manager
}

// check refuses, before anything is made, a v2 parent whose children
// would have no cpu.max (or, with --cpuset, no cpuset.cpus): the
// controllers must be enabled in its cgroup.subtree_control (which the
// kernel allows only where every ancestor enables them too). throttlebench
// writes that file only in its own default parent, so for the default
// parent it is the top of the hierarchy that must enable them; a parent
// the user named must enable them for its children itself.
func (v *v2Slice) check(spec SliceSpec) error {
	given := filepath.Clean(spec.Parent)
	at := given
	if spec.CreateParent {
		at = filepath.Dir(given)
	}
	ctl := filepath.Join(at, "cgroup.subtree_control")
	data, err := v.cgfs.readFile(ctl)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	has := strings.Fields(string(data))
	for _, c := range []string{"cpu", "cpuset"} {
		if slices.Contains(has, c) || c == "cpuset" && spec.Cpuset == nil {
			continue
		}
		what := map[string]string{"cpu": "cpu.max", "cpuset": "cpuset.cpus (--cpuset needs it)"}[c]
		if spec.CreateParent {
			return &ParentError{Given: spec.Parent, Reason: fmt.Sprintf(
				"%s does not enable the %s controller for its children (cgroup.subtree_control: %q), so throttlebench's default parent %s could not give its slices %s; "+
					"throttlebench changes no cgroup it did not create: enable it (echo +%s > %s), or name with --parent a cgroup that enables it for its children",
				at, c, strings.TrimSpace(string(data)), given, what, c, ctl)}
		}
		return &ParentError{Given: spec.Parent, Reason: fmt.Sprintf(
			"%s does not enable the %s controller for its children (cgroup.subtree_control: %q), so a slice in it would have no %s; "+
				"throttlebench does not change a parent you name: enable it (echo +%s > %s) or leave out --parent",
			at, c, strings.TrimSpace(string(data)), what, c, ctl)}
	}
	return nil
}

// setUp writes the slice's cpu.max. In throttlebench's own default parent
// it first enables the controllers the slice needs for the default
// parent's children (cpu, and cpuset with --cpuset): a child has cpu.max
// only when its parent enabled +cpu; and gives it its cpu.weight
// (DefaultParentWeight). Nothing else's cgroup.subtree_control or weight
// is written (check).
func (v *v2Slice) setUp(s *Slice, spec SliceSpec, _, name string) error {
	m, err := loadV2(filepath.Clean(spec.Parent), name)
	if err != nil {
		return err
	}
	if spec.CreateParent {
		ctrl := []string{"cpu"}
		if spec.Cpuset != nil {
			ctrl = append(ctrl, "cpuset")
		}
		if err := m.ToggleControllers(ctrl, cgroup2.Enable); err != nil {
			return err
		}
		parent, err := loadV2(filepath.Dir(filepath.Clean(spec.Parent)), filepath.Base(spec.Parent))
		if err != nil {
			return err
		}
		w := uint64(DefaultParentWeight)
		if err := parent.Update(&cgroup2.Resources{CPU: &cgroup2.CPU{Weight: &w}}); err != nil {
			return fmt.Errorf("weigh the default parent %s: %w", spec.Parent, err)
		}
	}
	if err := m.Update(v2CPUMax(spec.Limits)); err != nil {
		return err
	}
	v.dir, v.m = s.Dir, m
	return nil
}

// placeCpuset writes the CPUs asked in the slice's own cpuset.cpus.
func (v *v2Slice) placeCpuset(s *Slice, spec SliceSpec, _ string) error {
	list := cpulist.Format(spec.Cpuset.CPUs)
	if err := v.m.Update(&cgroup2.Resources{CPU: &cgroup2.CPU{Cpus: list}}); err != nil {
		return fmt.Errorf("write CPUs %s to %s: %w", list, filepath.Join(s.Dir, "cpuset.cpus"), err)
	}
	s.cpuset = s.Dir
	return nil
}

func (v *v2Slice) addProc(pid int) error { return addProcRetry(v.m.AddProc, pid) }

// usage is cpu.stat's usage_usec, from the library's statistics.
func (v *v2Slice) usage() (time.Duration, error) {
	st, err := v.m.StatFiltered(cgroup2.StatCPU)
	if err != nil {
		return 0, fmt.Errorf("read the usage of %s: %w", v.dir, err)
	}
	return time.Duration(st.GetCPU().GetUsageUsec()) * time.Microsecond, nil
}

func (v *v2Slice) remove() error { return v.m.Delete() }

// removeTwin: a v2 slice has no twin; a directory named so is only ever
// an empty one.
func (v *v2Slice) removeTwin(fs cgroupfs, dir string) error { return rmdirEmpty(fs, dir) }
