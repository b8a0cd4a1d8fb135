package cgroup

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
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
	t, err := h.mounts()
	if err != nil {
		return Hierarchy{}, err
	}
	// A controller is bound to at most one hierarchy; v1 wins on hybrid hosts
	// because a controller bound to v1 never appears in cgroup2's list.
	if version == 0 || version == 1 {
		if cpu, ok := t.v1("cpu"); ok {
			hier := t.hierarchy(cpu, 1)
			if a, ok := t.acct(cpu, true); ok {
				hier.Acct = t.hierarchy(a, 1).MountPoint
			}
			return hier, nil
		}
	}
	if version == 0 || version == 2 {
		if v2 := t.v2Offering("cpu"); len(v2) > 0 {
			return v2[0], nil
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
	cgPath, found := hier.version().line(lines, "cpu")
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
	var errs []error
	for _, f := range c.version().limitFiles() {
		data, err := c.cgroupfs().readFile(filepath.Join(c.Dir, f.name))
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			errs = append(errs, err)
		default:
			errs = append(errs, f.set(&l, data))
		}
	}
	if l.Burst == Unlimited {
		l.Burst = 0
	}
	return l, errors.Join(errs...)
}

// Weight is c's CPU weight on v2's scale (Level.Weight); 0 where c has no
// weight file (the top of the hierarchy).
func (c Cgroup) Weight() (int, error) {
	name, toV2 := c.version().weightFile()
	data, err := c.cgroupfs().readFile(filepath.Join(c.Dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %q", ErrParse, name, data)
	}
	return toV2(n), nil
}

// Stat reads the throttling counters of c.
func (c Cgroup) Stat() (CPUStat, error) {
	data, err := c.cgroupfs().readFile(filepath.Join(c.Dir, "cpu.stat"))
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
// cpuacct share a v1 hierarchy; where v1 mounts cpuacct apart, its cgroup
// of the same path there (v1.accounting says why only that one).
func (h Host) Accounting(cg Cgroup) (Cgroup, error) { return cg.version().accounting(h, cg) }

// Usage is the CPU time all processes of c have used since c was made: v2
// usage_usec in cpu.stat, v1 cpuacct.usage (c from Host.Accounting). A
// missing counter is ErrNoUsage.
func (c Cgroup) Usage() (time.Duration, error) { return readUsage(c, c.version()) }

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
		w, err := Cgroup{Hierarchy: c.Hierarchy, Dir: dir}.Weight()
		if err != nil {
			return nil, err
		}
		out = append(out, Level{Dir: dir, Limits: l, Weight: w})
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
