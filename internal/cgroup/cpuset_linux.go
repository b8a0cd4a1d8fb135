//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/topology"
)

// The cpuset of a slice (--cpuset), written by hand like the limits.
//
// On v2 the slice's own cpuset.cpus, once its parent enables the cpuset
// controller for its children: throttlebench enables it only in its own
// default parent; a parent the user names must have it already.
//
// On v1 the cpuset controller has a hierarchy of its own (beside cpu, at
// /sys/fs/cgroup/cpuset on our hosts): the slice gets a twin there, of the
// same name under the same parent path, and its process is moved into both.
// A fresh v1 cpuset has no CPUs and no memory nodes, and refuses tasks until
// it has both: the twin copies its parent's memory nodes, then takes the
// CPUs asked. The default parent's twin, made like the default parent
// itself, copies its parent's CPUs and nodes; a parent the user names must
// have its twin already. Where v1 mounts cpu and cpuset together the slice
// is its own twin.

// checkCpusetParent refuses, before anything is made, a parent the user
// named that cannot hold a cpuset of its children's own.
func checkCpusetParent(spec SliceSpec) error {
	cs := spec.Cpuset
	if spec.CreateParent {
		if cs.Hier.Version == 2 {
			return checkV2DefaultCpuset(spec.Parent)
		}
		return nil // made and set up here
	}
	if cs.Hier.Version == 2 {
		ctrl, err := readFile(filepath.Join(spec.Parent, "cgroup.subtree_control"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if !slices.Contains(strings.Fields(string(ctrl)), "cpuset") {
			return &ParentError{Given: spec.Parent, Reason: fmt.Sprintf(
				"--cpuset needs the cpuset controller in the parent's children: %s does not enable it; enable it (echo +cpuset > %s) or leave out --parent",
				spec.Parent, filepath.Join(spec.Parent, "cgroup.subtree_control"))}
		}
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

// checkV2DefaultCpuset refuses, before anything is made, a cpuset in the
// default parent when the default parent could not enable the cpuset
// controller for its children: that needs the controller enabled in the
// mount point's cgroup.subtree_control, which throttlebench does not write
// (it would give every cgroup beside its own a cpuset).
func checkV2DefaultCpuset(defaultParent string) error {
	top := filepath.Dir(filepath.Clean(defaultParent))
	ctl := filepath.Join(top, "cgroup.subtree_control")
	data, err := readFile(ctl)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if slices.Contains(strings.Fields(string(data)), "cpuset") {
		return nil
	}
	return &ParentError{Given: defaultParent, Reason: fmt.Sprintf(
		"--cpuset needs the cpuset controller for the children of %s, where throttlebench makes its default parent, and %s does not enable it (cgroup.subtree_control: %q); "+
			"enable it (echo +cpuset > %s), or name with --parent a cgroup that enables it for its children",
		top, top, strings.TrimSpace(string(data)), ctl)}
}

// placeCpuset gives the slice at dir, called name, the CPUs asked. It
// returns the twin it made in v1's own cpuset hierarchy ("" where the
// slice is its own); on error it removes what it made of the slice's.
func placeCpuset(spec SliceSpec, dir, name string) (twin string, err error) {
	cs := spec.Cpuset
	cpus, _, mems := cpusetFiles(cs.Hier.Version)
	list := topology.FormatList(cs.CPUs)
	if cs.Hier.Version == 2 {
		if spec.CreateParent {
			// Only in our own default parent; the top of the hierarchy
			// must enable the controller already (checkV2DefaultCpuset).
			ctl := filepath.Join(spec.Parent, "cgroup.subtree_control")
			if err := os.WriteFile(ctl, []byte("+cpuset"), 0); err != nil {
				return "", fmt.Errorf("enable +cpuset in %s: %w; the cpuset controller must be enabled in %s first",
					ctl, err, filepath.Join(filepath.Dir(spec.Parent), "cgroup.subtree_control"))
			}
		}
		return "", writeCpus(filepath.Join(dir, cpus), list)
	}

	own := dir // co-mounted: the slice is its own twin
	separate := filepath.Clean(cs.Parent) != filepath.Clean(spec.Parent)
	if separate {
		own = filepath.Join(cs.Parent, name)
	}
	// Another run may remove an empty default parent's twin between our
	// mkdirs (RemoveDefaultParent): then make it again.
	for attempt := 0; ; attempt++ {
		if spec.CreateParent {
			if err := os.Mkdir(cs.Parent, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", permissionError(fmt.Errorf("create %s: %w", cs.Parent, err))
			}
			if err := inheritV1(cs.Parent); err != nil {
				return "", err
			}
		}
		if !separate {
			break
		}
		err := os.Mkdir(own, 0o755)
		if err == nil {
			break
		}
		if errors.Is(err, fs.ErrNotExist) && spec.CreateParent && attempt < 5 {
			continue
		}
		return "", permissionError(fmt.Errorf("create %s: %w", own, err))
	}
	fail := func(err error) (string, error) {
		if separate {
			os.Remove(own)
		}
		return "", err
	}
	nodes, err := readFile(filepath.Join(cs.Parent, mems))
	if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(own, mems), []byte(strings.TrimSpace(string(nodes))), 0); err != nil {
		return fail(fmt.Errorf("write %s: %w", filepath.Join(own, mems), err))
	}
	if err := writeCpus(filepath.Join(own, cpus), list); err != nil {
		return fail(err)
	}
	if !separate {
		return "", nil
	}
	return own, nil
}

func writeCpus(path, list string) error {
	if err := os.WriteFile(path, []byte(list), 0); err != nil {
		return fmt.Errorf("write CPUs %s to %s: %w", list, path, err)
	}
	return nil
}

// inheritV1 gives a v1 cpuset that has none its parent's CPUs and memory
// nodes: the default parent's twin, made fresh, or left empty by a run that
// died between its mkdir and its writes. One that has them keeps them.
func inheritV1(dir string) error {
	cpus, _, mems := cpusetFiles(1)
	for _, f := range []string{mems, cpus} {
		cur, err := readFile(filepath.Join(dir, f))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if strings.TrimSpace(string(cur)) != "" {
			continue
		}
		v, err := readFile(filepath.Join(filepath.Dir(dir), f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(strings.TrimSpace(string(v))), 0); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(dir, f), err)
		}
	}
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
