package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNoCgroup says a cgroup the user named does not exist, or has no
// usage counter of its own: bad input, not a fault of the host.
var ErrNoCgroup = errors.New("no such cgroup")

// ErrNoProcess says the process the user named does not exist.
var ErrNoProcess = errors.New("no such process")

// UsageCounter names the counter c's usage is read from, as a person reads
// it: cpuacct.usage on v1, cpu.stat's usage_usec on v2.
func (c Cgroup) UsageCounter() string { return c.version().usageCounter() }

// IsHostRoot says whether c is the top of its hierarchy on the host, not
// only in this cgroup namespace (a container's / is its own cgroup): the
// kernel gives v1's release_agent to the true top alone, and v2's
// cgroup.type to every cgroup but the top.
func (c Cgroup) IsHostRoot() bool {
	if c.Path != "/" {
		return false
	}
	file, atTop := c.version().hostTopMark()
	_, err := os.Stat(filepath.Join(c.Dir, file))
	return !errors.Is(err, fs.ErrNotExist) == atTop
}

// usageMounts are the hierarchies involved in reading a cgroup's CPU usage:
// acct holds the counter (v1 cpuacct, else cgroup2) and named are those a
// user may name the cgroup in by its directory (acct, and on v1 the cpu
// hierarchy when cpuacct is mounted apart).
type usageMounts struct {
	acct  Hierarchy
	named []Hierarchy
}

func (h Host) usageMounts() (usageMounts, error) {
	t, err := h.mounts()
	if err != nil {
		return usageMounts{}, err
	}
	// A v1 cpuacct hierarchy counts the processes of v1 cgroups; where none
	// is mounted, every cgroup2 cgroup has usage_usec, with or without the
	// cpu controller.
	cpu, hasCPU := t.v1("cpu")
	if acct, ok := t.acct(cpu, hasCPU); ok {
		um := usageMounts{acct: t.hierarchy(acct, 1)}
		um.named = []Hierarchy{um.acct}
		if hasCPU && cpu.MountPoint != acct.MountPoint {
			um.named = append(um.named, t.hierarchy(cpu, 1))
		}
		return um, nil
	}
	if v2 := t.v2(); len(v2) > 0 {
		hier := t.hierarchy(v2[0], 2)
		return usageMounts{acct: hier, named: []Hierarchy{hier}}, nil
	}
	return usageMounts{}, fmt.Errorf("%w: neither a cgroup v1 hierarchy with the cpuacct controller nor cgroup2 is mounted", ErrNoUsage)
}

// UsageCgroup finds the cgroup whose CPU usage counter (Cgroup.Usage) counts
// the cgroup the user named in spec:
//
//   - "" for the calling process's own cgroup;
//   - a directory below a cgroup mount: on v1 in the cpuacct hierarchy or in
//     the cpu hierarchy (the cpuacct cgroup of the same path counts it);
//   - a cgroup path relative to the top of the visible hierarchy
//     ("kubepods.slice/x", "/x").
//
// A cgroup that does not exist, or on v1 has no cpuacct cgroup of the same
// path, is ErrNoCgroup.
func (h Host) UsageCgroup(spec string) (Cgroup, error) {
	if spec == "" {
		return h.UsageCgroupOfPID(0)
	}
	um, err := h.usageMounts()
	if err != nil {
		return Cgroup{}, err
	}
	cgPath, err := um.cgroupPath(spec)
	if err != nil {
		return Cgroup{}, err
	}
	return um.counted(cgPath)
}

// UsageCgroupOfPID is UsageCgroup for the cgroup process pid is in (0: the
// calling process).
func (h Host) UsageCgroupOfPID(pid int) (Cgroup, error) {
	um, err := h.usageMounts()
	if err != nil {
		return Cgroup{}, err
	}
	proc := "self"
	if pid != 0 {
		proc = strconv.Itoa(pid)
	}
	lines, err := h.procCgroup(proc)
	if errors.Is(err, fs.ErrNotExist) {
		return Cgroup{}, fmt.Errorf("%w: %d", ErrNoProcess, pid)
	}
	if err != nil {
		return Cgroup{}, err
	}
	if p, ok := um.acct.version().line(lines, "cpuacct"); ok {
		return um.counted(p)
	}
	return Cgroup{}, fmt.Errorf("%w: no cgroup v%d line with the usage counter in /proc/%s/cgroup", ErrParse, um.acct.Version, proc)
}

// cgroupPath turns what the user gave into a kernel cgroup path.
func (um usageMounts) cgroupPath(spec string) (string, error) {
	// "/" is the top of the hierarchy, not the root of the filesystem; an
	// absolute path outside every cgroup mount is a cgroup path too
	// ("/kubepods.slice/x"), as --parent takes it.
	if filepath.IsAbs(spec) && filepath.Clean(spec) != "/" {
		dir := filepath.Clean(spec)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		for _, hier := range um.named {
			mount := filepath.Clean(hier.MountPoint)
			if real, err := filepath.EvalSymlinks(mount); err == nil {
				mount = real
			}
			if dir != mount && !strings.HasPrefix(dir, mount+"/") {
				continue
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return "", fmt.Errorf("%w: %s is not a cgroup directory", ErrNoCgroup, dir)
			}
			return path.Join("/", hier.MountRoot, strings.TrimPrefix(dir, mount)), nil
		}
		if strings.HasPrefix(dir, filepath.Dir(filepath.Clean(um.acct.MountPoint))+"/") {
			return "", fmt.Errorf("%w: %s is in a hierarchy that does not count CPU usage; name it below %s",
				ErrNoCgroup, dir, um.mountList())
		}
	}
	rel := path.Clean(strings.TrimLeft(spec, "/"))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%w: cgroup path %s climbs out of the hierarchy mounted at %s", ErrNoCgroup, spec, um.acct.MountPoint)
	}
	return path.Join("/", um.acct.MountRoot, rel), nil
}

func (um usageMounts) mountList() string {
	var s []string
	for _, hier := range um.named {
		s = append(s, hier.MountPoint)
	}
	return strings.Join(s, " or ")
}

// counted is the cgroup of the usage hierarchy at cgPath, which must exist:
// on v1 a cpu cgroup without a cpuacct cgroup of the same path has no
// counter of its own (its processes count in another cpuacct cgroup, with
// others).
func (um usageMounts) counted(cgPath string) (Cgroup, error) {
	cg, err := um.acct.At(cgPath)
	if err != nil {
		return Cgroup{}, fmt.Errorf("%w: %v", ErrNoCgroup, err)
	}
	st, err := os.Stat(cg.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Cgroup{}, um.acct.version().noCounter(cg.Path, cg.Dir)
	case err != nil:
		return Cgroup{}, err
	case !st.IsDir():
		return Cgroup{}, fmt.Errorf("%w: %s is a file, not a cgroup directory", ErrNoCgroup, cg.Dir)
	}
	return cg, nil
}
