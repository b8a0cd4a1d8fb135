package cgroup

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
)

var inf = math.Inf(1)

// ErrNoCPUController says no mounted hierarchy (of the requested version)
// holds the cpu controller.
var ErrNoCPUController = errors.New("no cgroup hierarchy with the cpu controller is mounted")

// Host reads cgroup state below Root: "/" in production, a fixture tree in
// tests. Paths it returns include Root.
type Host struct {
	Root string
}

// Hierarchy is the mounted cgroup hierarchy that holds the cpu controller.
type Hierarchy struct {
	Version    int    // 1 or 2
	MountPoint string // directory on disk (including Host.Root)
	MountRoot  string // cgroup path mounted there: "/" on a host, "/docker/<id>" in a container
	// Acct is, on v1, the mount point of the hierarchy that holds the
	// cpuacct controller: MountPoint itself where cpu and cpuacct are
	// mounted together (cpu,cpuacct), another directory where cpuacct is
	// mounted apart (as on our hybrid hosts, where a slice gets a twin
	// there for its usage counter), "" where it is not mounted and on v2.
	Acct string
	// Root is the Host's root, below which /proc is read ("" is "/").
	Root string
}

// Cgroup is one cgroup of the cpu hierarchy (or, from Host.Accounting, of
// the v1 cpuacct hierarchy).
type Cgroup struct {
	Hierarchy
	Path string // the cgroup path as the kernel names it (/proc/self/cgroup)
	Dir  string // its directory on disk
}

func (h Host) path(p string) string { return filepath.Join(h.Root, p) }

// CPUHierarchy finds the hierarchy holding the cpu controller. version is 0
// (prefer v1 where the cpu controller is bound to v1, as on hybrid hosts), 1
// or 2.
func (h Host) CPUHierarchy(version int) (Hierarchy, error) {
	mounts, err := h.mounts()
	if err != nil {
		return Hierarchy{}, err
	}
	return h.pickHierarchy(mounts, version)
}

func (h Host) pickHierarchy(mounts []Mount, version int) (Hierarchy, error) {
	// A controller is bound to at most one hierarchy; v1 wins on hybrid hosts
	// because a controller bound to v1 never appears in cgroup2's list.
	if version == 0 || version == 1 {
		for _, m := range mounts {
			if m.FSType == "cgroup" && slices.Contains(m.SuperOpts, "cpu") {
				hier := Hierarchy{Version: 1, MountPoint: h.path(m.MountPoint), MountRoot: m.Root, Root: h.Root}
				for _, a := range mounts {
					if a.FSType == "cgroup" && slices.Contains(a.SuperOpts, "cpuacct") && a.Root == m.Root {
						hier.Acct = h.path(a.MountPoint)
						break
					}
				}
				return hier, nil
			}
		}
	}
	if version == 0 || version == 2 {
		for _, m := range mounts {
			if m.FSType != "cgroup2" {
				continue
			}
			mp := h.path(m.MountPoint)
			ctrl, err := readFile(filepath.Join(mp, "cgroup.controllers"))
			if err != nil {
				continue
			}
			if slices.Contains(strings.Fields(string(ctrl)), "cpu") {
				return Hierarchy{Version: 2, MountPoint: mp, MountRoot: m.Root, Root: h.Root}, nil
			}
		}
	}
	if version != 0 {
		return Hierarchy{}, fmt.Errorf("%w (cgroup v%d)", ErrNoCPUController, version)
	}
	return Hierarchy{}, ErrNoCPUController
}

// Self finds the calling process's own cgroup in the cpu hierarchy, honouring
// the mount root: inside a container the container's own cgroup is mounted at
// the hierarchy's mount point, so /docker/<id> lives at the mount point itself.
func (h Host) Self(version int) (Cgroup, error) {
	hier, err := h.CPUHierarchy(version)
	if err != nil {
		return Cgroup{}, err
	}
	lines, err := h.procCgroup("self")
	if err != nil {
		return Cgroup{}, err
	}
	var cgPath string
	found := false
	for _, l := range lines {
		if hier.Version == 2 && l.ID == 0 && len(l.Controllers) == 0 ||
			hier.Version == 1 && slices.Contains(l.Controllers, "cpu") {
			cgPath, found = l.Path, true
			break
		}
	}
	if !found {
		return Cgroup{}, fmt.Errorf("%w: no cgroup v%d line with the cpu controller in /proc/self/cgroup", ErrParse, hier.Version)
	}
	return hier.At(cgPath)
}

// At returns the cgroup with the given kernel path in this hierarchy.
func (hier Hierarchy) At(cgPath string) (Cgroup, error) {
	rel, ok := relCgroupPath(hier.MountRoot, cgPath)
	if !ok {
		// A path outside the mount root (a cgroup namespace shows "/.." paths
		// for cgroups above it) cannot be reached through this mount.
		return Cgroup{}, fmt.Errorf("cgroup %s is outside the mounted part %s of the hierarchy at %s", cgPath, hier.MountRoot, hier.MountPoint)
	}
	return Cgroup{Hierarchy: hier, Path: path.Clean("/" + cgPath), Dir: filepath.Join(hier.MountPoint, rel)}, nil
}

// relCgroupPath returns cgroup path p relative to the mount root root, or
// false when p lies outside it. Both are cleaned relative to the cgroup
// namespace root, so that a leading ".." (how a cgroup namespace shows
// cgroups above its root, in /proc/self/cgroup and in mountinfo) survives
// instead of being cleaned away at "/".
func relCgroupPath(root, p string) (string, bool) {
	root = path.Clean(strings.TrimLeft(root, "/"))
	p = path.Clean(strings.TrimLeft(p, "/"))
	rel := p
	switch {
	case root == ".":
	case p == root:
		rel = "."
	case strings.HasPrefix(p, root+"/"):
		rel = strings.TrimPrefix(p, root+"/")
	default:
		return "", false
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return path.Clean("/" + rel), true
}

// Limits reads the CFS bandwidth settings of c. Missing files mean "no
// limit" (a v2 cgroup whose parent has not enabled the cpu controller).
func (c Cgroup) Limits() (Limits, error) {
	l := Limits{Quota: Unlimited}
	read := func(name string, set func([]byte) error) error {
		data, err := readFile(filepath.Join(c.Dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		return set(data)
	}
	micros := func(dst *time.Duration) func([]byte) error {
		return func(b []byte) (err error) { *dst, err = parseMicros(b); return }
	}
	var err error
	if c.Version == 1 {
		err = errors.Join(
			read("cpu.cfs_period_us", micros(&l.Period)),
			read("cpu.cfs_quota_us", micros(&l.Quota)),
			read("cpu.cfs_burst_us", micros(&l.Burst)),
		)
	} else {
		err = errors.Join(
			read("cpu.max", func(b []byte) (err error) { l.Quota, l.Period, err = parseCPUMax(b); return }),
			read("cpu.max.burst", micros(&l.Burst)),
		)
	}
	if l.Burst == Unlimited {
		l.Burst = 0
	}
	return l, err
}

// Stat reads the throttling counters of c.
func (c Cgroup) Stat() (CPUStat, error) {
	data, err := readFile(filepath.Join(c.Dir, "cpu.stat"))
	if errors.Is(err, os.ErrNotExist) {
		return CPUStat{}, nil
	}
	if err != nil {
		return CPUStat{}, err
	}
	return parseCPUStat(data)
}

// ErrNoUsage says the CPU usage of a cgroup cannot be read: no cpuacct
// controller (v1), no usage counter, or a v1 cpuacct cgroup that is not the
// process's cpu cgroup.
var ErrNoUsage = errors.New("the cgroup's CPU usage is not known")

// Accounting returns the cgroup whose CPU usage counts the processes of cg,
// the process's own cgroup (Self): cg itself on cgroup v2 and where cpu and
// cpuacct share a v1 hierarchy. Where v1 mounts cpuacct apart (as on our
// hybrid hosts) it is the process's cgroup in the cpuacct hierarchy, but
// only when that has the same path as cg: a cpuacct cgroup of another name
// groups other processes, and its usage would blame them on cg.
func (h Host) Accounting(cg Cgroup) (Cgroup, error) {
	if cg.Version == 2 {
		return cg, nil
	}
	mounts, err := h.mounts()
	if err != nil {
		return Cgroup{}, err
	}
	var acct *Hierarchy
	for _, m := range mounts {
		if m.FSType == "cgroup" && slices.Contains(m.SuperOpts, "cpuacct") {
			acct = &Hierarchy{Version: 1, MountPoint: h.path(m.MountPoint), MountRoot: m.Root}
			break
		}
	}
	switch {
	case acct == nil:
		return Cgroup{}, fmt.Errorf("%w: no cgroup v1 hierarchy with the cpuacct controller", ErrNoUsage)
	case acct.MountPoint == cg.MountPoint:
		return cg, nil
	}
	lines, err := h.procCgroup("self")
	if err != nil {
		return Cgroup{}, err
	}
	for _, l := range lines {
		if !slices.Contains(l.Controllers, "cpuacct") {
			continue
		}
		if path.Clean("/"+l.Path) != cg.Path {
			return Cgroup{}, fmt.Errorf("%w: the cpuacct cgroup %s is not the cpu cgroup %s", ErrNoUsage, l.Path, cg.Path)
		}
		return acct.At(l.Path)
	}
	return Cgroup{}, fmt.Errorf("%w: no cpuacct line in /proc/self/cgroup", ErrNoUsage)
}

// Usage is the CPU time all processes of c have used since c was made: v2
// usage_usec in cpu.stat, v1 cpuacct.usage (c from Host.Accounting). A
// missing counter is ErrNoUsage.
func (c Cgroup) Usage() (time.Duration, error) {
	name := "cpuacct.usage"
	if c.Version == 2 {
		name = "cpu.stat"
	}
	data, err := readFile(filepath.Join(c.Dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("%w: no %s in %s", ErrNoUsage, name, c.Dir)
	}
	if err != nil {
		return 0, err
	}
	if c.Version == 2 {
		return parseUsageUsec(data)
	}
	ns, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 63)
	if err != nil {
		return 0, fmt.Errorf("%w: cpuacct.usage: %q", ErrParse, data)
	}
	return time.Duration(ns), nil
}

// Level is bandwidth's: the limit found at one cgroup on the way from a
// leaf to the visible top of the hierarchy.
type Level = bandwidth.Level

// Chain returns the limits of c and of every ancestor visible through the
// mount, leaf first.
func (c Cgroup) Chain() ([]Level, error) {
	var out []Level
	dir := c.Dir
	for {
		l, err := Cgroup{Hierarchy: c.Hierarchy, Dir: dir}.Limits()
		if err != nil {
			return nil, err
		}
		out = append(out, Level{Dir: dir, Limits: l})
		if dir == c.MountPoint || !strings.HasPrefix(dir, c.MountPoint+"/") {
			return out, nil
		}
		dir = filepath.Dir(dir)
	}
}

// EffectiveCPUs is bandwidth.EffectiveCPUs: the tightest CPU limit over a
// chain of levels and the CPUs the process may run on.
func EffectiveCPUs(chain []Level, cpusAllowed int) float64 {
	return bandwidth.EffectiveCPUs(chain, cpusAllowed)
}
