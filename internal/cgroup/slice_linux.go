//go:build linux

package cgroup

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/containerd/cgroups/v3/cgroup2"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// ErrPermission says a slice could not be created for lack of rights: not
// root, a read-only /sys/fs/cgroup (a container), or a parent not delegated
// to this user.
var ErrPermission = errors.New("no permission to create a cgroup")

// SliceSpec says where a slice is created and with which limits.
type SliceSpec struct {
	Parent string // directory on disk, below the hierarchy's mount point
	Limits Limits // Quota may be Unlimited; Burst 0 leaves burst alone
}

// Slice is a cgroup created for one benchmark run. Delete it when done.
type Slice struct {
	Cgroup
	v1 cgroup1.Cgroup
	v2 *cgroup2.Manager
}

// DefaultParent is where slices go unless the user says otherwise: a
// throttlebench directory at the top of the visible hierarchy.
func (hier Hierarchy) DefaultParent() string {
	return filepath.Join(hier.MountPoint, "throttlebench")
}

// ParentDir resolves a --parent value: a directory below the mount point as
// given, otherwise a cgroup path relative to the top of the mounted hierarchy.
// A path that leaves the hierarchy ("../x") is refused: cleanup would
// otherwise sweep a directory that is no cgroup of ours.
func (hier Hierarchy) ParentDir(p string) (string, error) {
	dir := filepath.Clean(p)
	if !hier.contains(dir) {
		dir = filepath.Join(hier.MountPoint, p)
	}
	if !hier.contains(dir) {
		return "", fmt.Errorf("invalid --parent %q: %w %s", p, ErrParentOutside, hier.MountPoint)
	}
	return dir, nil
}

// ErrParentOutside says a --parent is not below the cpu hierarchy's mount.
var ErrParentOutside = errors.New("not below the cpu hierarchy mounted at")

func (hier Hierarchy) contains(dir string) bool {
	return dir == hier.MountPoint || strings.HasPrefix(dir, hier.MountPoint+"/")
}

// sliceName embeds the owner's PID and start time so that `cleanup` can tell
// a live owner from a dead one even after PID reuse, plus random bits so that
// parallel runs never collide.
var sliceNameRE = regexp.MustCompile(`^tb-(\d+)-(\d+)-[0-9a-f]{8}$`)

func newSliceName() (string, error) {
	st, err := procStartTime(os.Getpid())
	if err != nil {
		return "", err
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("tb-%d-%d-%s", os.Getpid(), st, hex.EncodeToString(b[:])), nil
}

// CreateSlice creates a fresh, uniquely named cgroup under spec.Parent with
// spec.Limits written. On error nothing is left behind.
func (hier Hierarchy) CreateSlice(spec SliceSpec) (*Slice, error) {
	parent := filepath.Clean(spec.Parent)
	if !hier.contains(parent) {
		return nil, fmt.Errorf("parent %s: %w %s", parent, ErrParentOutside, hier.MountPoint)
	}
	name, err := newSliceName()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(parent, name)
	group := "/" + strings.TrimPrefix(strings.TrimPrefix(dir, hier.MountPoint), "/")
	s := &Slice{Cgroup: Cgroup{Hierarchy: hier, Path: filepath.Join(hier.MountRoot, group), Dir: dir}}

	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, permissionError(fmt.Errorf("create parent %s: %w", parent, err))
	}
	// The directory is made here, before the library runs, so that a failure
	// to make it (no rights) is told apart from a limit the kernel refuses.
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, permissionError(fmt.Errorf("create %s: %w", dir, err))
	}
	quota, period := spec.Limits.Quota, spec.Limits.Period
	if hier.Version == 1 {
		s.v1, err = hier.newV1(group, quota, period)
	} else {
		s.v2, err = hier.newV2(group, quota, period)
	}
	if err == nil && spec.Limits.Burst > 0 {
		err = s.writeBurst(spec.Limits.Burst)
	}
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("set up cgroup %s: %w", dir, err)
	}
	return s, nil
}

func permissionError(err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("%w: %w", ErrPermission, err)
	}
	return err
}

func (hier Hierarchy) newV1(group string, quota, period time.Duration) (cgroup1.Cgroup, error) {
	// containerd's v1 cpu controller lives at <root>/cpu; find a root where that
	// name reaches our mount ("cpu" itself, or the "cpu -> cpu,cpuacct" link
	// that systemd makes). A single-subsystem hierarchy keeps the library from
	// creating directories in all the other controllers.
	root := filepath.Dir(hier.MountPoint)
	if real, err := filepath.EvalSymlinks(filepath.Join(root, "cpu")); err != nil || real != hier.MountPoint {
		if filepath.Base(hier.MountPoint) != "cpu" {
			return nil, fmt.Errorf("cgroup v1 cpu controller at %s: no %s/cpu leads there", hier.MountPoint, root)
		}
	}
	p := uint64(period / time.Microsecond)
	q := int64(-1)
	if quota > 0 {
		q = int64(quota / time.Microsecond)
	}
	res := &specs.LinuxResources{CPU: &specs.LinuxCPU{Period: &p, Quota: &q}}
	only := func() ([]cgroup1.Subsystem, error) { return []cgroup1.Subsystem{cgroup1.NewCpu(root)}, nil }
	return cgroup1.New(cgroup1.StaticPath(group), res, cgroup1.WithHierarchy(only))
}

func (hier Hierarchy) newV2(group string, quota, period time.Duration) (*cgroup2.Manager, error) {
	p := uint64(period / time.Microsecond)
	var q *int64
	if quota > 0 {
		v := int64(quota / time.Microsecond)
		q = &v
	}
	// NewManager enables +cpu in every ancestor's cgroup.subtree_control
	// below the mount point, then writes cpu.max.
	return cgroup2.NewManager(hier.MountPoint, group, &cgroup2.Resources{CPU: &cgroup2.CPU{Max: cgroup2.NewCPUMax(q, &p)}})
}

// writeBurst writes the burst the library knows nothing of.
func (s *Slice) writeBurst(burst time.Duration) error {
	name := "cpu.max.burst"
	if s.Version == 1 {
		name = "cpu.cfs_burst_us"
	}
	v := strconv.FormatInt(int64(burst/time.Microsecond), 10)
	if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(v), 0); err != nil {
		return fmt.Errorf("write burst %sµs: %w", v, err)
	}
	return nil
}

// AddProc moves a process, with all its threads, into the slice.
func (s *Slice) AddProc(pid int) error {
	if s.v1 != nil {
		return s.v1.AddProc(uint64(pid), cgroup1.Cpu)
	}
	return s.v2.AddProc(uint64(pid))
}

// Delete kills whatever still runs in the slice and removes it.
func (s *Slice) Delete() error {
	if err := killAll(s.Dir); err != nil {
		return err
	}
	if s.v1 != nil {
		return s.v1.Delete()
	}
	return s.v2.Delete()
}

// killAll SIGKILLs every process in dir and waits until the cgroup is empty.
// After a normal run the child has been reaped and there is nothing to do.
func killAll(dir string) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		data, err := readFile(filepath.Join(dir, "cgroup.procs"))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		pids := strings.Fields(string(data))
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v in %s survive SIGKILL", pids, dir)
		}
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil && pid > 0 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procStartTime is field 22 of /proc/<pid>/stat: the start time in clock
// ticks since boot, which together with the PID names a process uniquely.
func procStartTime(pid int) (uint64, error) {
	data, err := readFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	st, err := parseProcStartTime(data)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return st, nil
}

// CleanStale removes the slices under parent whose owning throttlebench
// process no longer lives (it was SIGKILLed, or the machine lost power in the
// middle of a run), killing anything still inside them. It returns the
// directories removed.
func CleanStale(parent string) ([]string, error) {
	entries, err := os.ReadDir(parent)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		m := sliceNameRE.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		start, _ := strconv.ParseUint(m[2], 10, 64)
		if st, err := procStartTime(pid); err == nil && st == start {
			continue // its owner still runs
		}
		dir := filepath.Join(parent, e.Name())
		if err := killAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}
