//go:build linux

package cgroup

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrPermission says a slice could not be created for lack of rights: not
// root, a read-only /sys/fs/cgroup (a container), or a parent not delegated
// to this user.
var ErrPermission = errors.New("no permission to create a cgroup")

// ErrLimitsRefused says the kernel refused the limits written into a new
// slice: a combination it cannot take.
var ErrLimitsRefused = errors.New("the kernel refused these limits")

// SliceSpec says where a slice is created and with which limits.
type SliceSpec struct {
	Parent string // directory on disk, below the hierarchy's mount point
	// CreateParent makes Parent if it is missing. Only for the default
	// parent: a parent the user names must exist (see ParentDir).
	CreateParent bool
	Limits       Limits // Quota may be Unlimited; Burst 0 leaves burst alone
	// Cpuset, when set, confines the slice's processes to its CPUs.
	Cpuset *CpusetSpec
}

// Slice is a cgroup created for one benchmark run. Delete it when done.
type Slice struct {
	Cgroup
	// twin is the slice's own cpuset in v1's separate cpuset hierarchy
	// (--cpuset): the same name under the same parent path; "" when none.
	twin string
	// cpuset is where the slice's cpuset files are: twin, or the slice
	// itself; "" without --cpuset.
	cpuset string
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
		return nil, &ParentError{Given: spec.Parent, Reason: fmt.Sprintf("%s is outside the cpu hierarchy mounted at %s", parent, hier.MountPoint)}
	}
	name, err := newSliceName()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(parent, name)
	group := "/" + strings.TrimPrefix(strings.TrimPrefix(dir, hier.MountPoint), "/")
	s := &Slice{Cgroup: Cgroup{Hierarchy: hier, Path: filepath.Join(hier.MountRoot, group), Dir: dir}}
	if hier.Version == 2 && !spec.CreateParent {
		// A parent the user named is not changed: it must enable the cpu
		// controller for its children already.
		if err := checkV2Parent(spec.Parent, parent); err != nil {
			return nil, err
		}
	}
	if spec.Cpuset != nil {
		// A parent the user named must offer the cpuset controller already.
		if err := checkCpusetParent(spec); err != nil {
			return nil, err
		}
	}

	// The directory is made here, before the library runs, so that a failure
	// to make it (no rights) is told apart from a limit the kernel refuses.
	// Another run may remove an empty default parent between our mkdirs
	// (RemoveDefaultParent): then make it again.
	for attempt := 0; ; attempt++ {
		if spec.CreateParent {
			if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, permissionError(fmt.Errorf("create parent %s: %w", parent, err))
			}
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if errors.Is(err, fs.ErrNotExist) && spec.CreateParent && attempt < 5 {
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &ParentError{Given: spec.Parent, Reason: fmt.Sprintf("%s does not exist", parent)}
		}
		return nil, permissionError(fmt.Errorf("create %s: %w", dir, err))
	}
	quota, period := spec.Limits.Quota, spec.Limits.Period
	if hier.Version == 1 {
		err = hier.newV1(group, quota, period)
	} else {
		err = hier.newV2(group, quota, period, spec.CreateParent)
	}
	if err == nil && spec.Limits.Burst > 0 {
		err = s.writeBurst(spec.Limits.Burst)
	}
	if err != nil {
		os.Remove(dir)
		// EINVAL (or ERANGE) from a limit file: the kernel refuses this
		// combination of limits, which a sweep skips; anything else stops it.
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ERANGE) {
			err = fmt.Errorf("%w: %w", ErrLimitsRefused, err)
		}
		return nil, fmt.Errorf("set up cgroup %s: %w", dir, err)
	}
	if spec.Cpuset != nil {
		// Not a combination of limits: a cpuset refused is refused for
		// every configuration of a sweep alike.
		if s.twin, err = placeCpuset(spec, dir, name); err != nil {
			os.Remove(dir)
			return nil, fmt.Errorf("set up the cpuset of %s: %w", dir, err)
		}
		s.cpuset = cmp.Or(s.twin, dir)
	}
	return s, nil
}

func permissionError(err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("%w: %w", ErrPermission, err)
	}
	return err
}

// The limit files are written by hand, not through containerd/cgroups, for
// the binary's size: that library linked protobuf, cilium/ebpf and godbus, and
// godbus looks methods up by index (reflect.Type.Method), which keeps the
// linker from dropping any exported method of any type in the program. They
// cost 5.7 MB of a 16.5 MB binary (test/docker/weigh.sh) for four files.

// newV1 writes the CFS period, then the quota, into the slice's directory in
// the v1 cpu hierarchy: a fresh cgroup's quota is unlimited, so any period is
// accepted first.
func (hier Hierarchy) newV1(group string, quota, period time.Duration) error {
	dir := filepath.Join(hier.MountPoint, group)
	q := "-1"
	if quota > 0 {
		q = strconv.FormatInt(int64(quota/time.Microsecond), 10)
	}
	for _, f := range []struct{ name, value string }{
		{"cpu.cfs_period_us", strconv.FormatInt(int64(period/time.Microsecond), 10)},
		{"cpu.cfs_quota_us", q},
	} {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.value), 0); err != nil {
			return err
		}
	}
	return nil
}

// checkV2Parent refuses, before anything is made, a v2 parent the user
// named whose children would have no cpu.max: the cpu controller must be
// enabled in its cgroup.subtree_control (which the kernel allows only where
// every ancestor enables it too). throttlebench does not write it there.
func checkV2Parent(given, parent string) error {
	ctl := filepath.Join(parent, "cgroup.subtree_control")
	data, err := readFile(ctl)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if slices.Contains(strings.Fields(string(data)), "cpu") {
		return nil
	}
	return &ParentError{Given: given, Reason: fmt.Sprintf(
		"%s does not enable the cpu controller for its children (cgroup.subtree_control: %q), so a slice in it would have no cpu.max; "+
			"throttlebench does not change a parent you name: enable it (echo +cpu > %s) or leave out --parent",
		parent, strings.TrimSpace(string(data)), ctl)}
}

// newV2 writes the slice's cpu.max. In throttlebench's own default parent
// (own) it first enables the cpu controller for the children of the mount
// point and of the default parent, in that order (cgroup.subtree_control: a
// child has cpu.max only when its parent enabled +cpu); a parent the user
// named enables it already (checkV2Parent) and is not written.
func (hier Hierarchy) newV2(group string, quota, period time.Duration, own bool) error {
	dir := filepath.Join(hier.MountPoint, group)
	var ancestors []string
	for a := filepath.Dir(dir); own && hier.contains(a); a = filepath.Dir(a) {
		ancestors = append(ancestors, a)
		if a == hier.MountPoint {
			break
		}
	}
	// Only the nearest ancestor's error counts: in a cgroup namespace or a
	// container the mount point's file may refuse the write (EPERM, EBUSY),
	// which is fine when it has +cpu already, and then the default
	// parent's own write succeeds.
	var err error
	for _, a := range slices.Backward(ancestors) {
		err = os.WriteFile(filepath.Join(a, "cgroup.subtree_control"), []byte("+cpu"), 0)
		if err != nil {
			err = fmt.Errorf("enable +cpu in %s: %w", a, err)
		}
	}
	if err != nil {
		return err
	}
	q := "max"
	if quota > 0 {
		q = strconv.FormatInt(int64(quota/time.Microsecond), 10)
	}
	v := q + " " + strconv.FormatInt(int64(period/time.Microsecond), 10)
	if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte(v), 0); err != nil {
		return err
	}
	return nil
}

// writeBurst writes the CFS burst (Linux 5.14).
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

// AddProc moves a process, with all its threads, into the slice: first
// into its cpuset twin, where there is one, which sets the threads' CPU
// affinity, then into the slice.
func (s *Slice) AddProc(pid int) error {
	if s.twin != "" {
		if err := addProc(s.twin, pid); err != nil {
			return err
		}
	}
	return addProc(s.Dir, pid)
}

func addProc(dir string, pid int) error {
	if pid <= 0 {
		return fmt.Errorf("move pid %d into %s: not a process", pid, dir)
	}
	f, err := os.OpenFile(filepath.Join(dir, "cgroup.procs"), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	// A process that is still being forked (TASK_NEW) is refused with
	// EINVAL for a moment; retry as runc and containerd do.
	for range 5 {
		if _, err = f.Write([]byte(strconv.Itoa(pid))); !errors.Is(err, syscall.EINVAL) {
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
	return err
}

// Delete removes the slice once it is empty; a slice that is gone already
// is no error. The caller ends its own workload first (by PID); Delete waits
// for the kernel to let go of it but kills nothing: a process someone else
// moved in is not ours to end, and the slice then stays, with an error that
// names the processes.
func (s *Slice) Delete() error {
	err := removeCgroup(s.Dir)
	if s.twin != "" {
		// The twin goes too, whatever became of the slice: its processes
		// are the slice's, and it is checked the same way.
		err = errors.Join(err, removeCgroup(s.twin))
	}
	return err
}

// removeCgroup removes the cgroup at dir once it is empty.
func removeCgroup(dir string) error {
	if err := waitEmpty(dir, 5*time.Second); err != nil {
		return err
	}
	if err := rmdirEmpty(dir); err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return nil
}

// rmdirEmpty removes a cgroup directory found empty. The kernel may refuse
// the rmdir (EBUSY) for a moment while the last task of the group is torn
// down: it retries with growing pauses, 150 ms in all. A process that
// entered meanwhile keeps it busy, and the directory stays.
func rmdirEmpty(dir string) error {
	delay := 10 * time.Millisecond
	var err error
	for i := range 5 {
		if i > 0 {
			time.Sleep(delay)
			delay *= 2
		}
		if err = os.Remove(dir); err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) {
			return err
		}
	}
	return err
}

// RemoveDefaultParent removes the default parent when no slice is left in
// it, so that a run leaves nothing behind; while another run uses it the
// kernel refuses (EBUSY or ENOTEMPTY) and it stays.
func (hier Hierarchy) RemoveDefaultParent() {
	os.Remove(hier.DefaultParent())
}

// procs lists the processes in cgroup dir; a directory without cgroup.procs
// (already removed, or not a cgroup) has none.
func procs(dir string) ([]string, error) {
	data, err := readFile(filepath.Join(dir, "cgroup.procs"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return strings.Fields(string(data)), err
}

// waitEmpty waits until no process is left in dir. After a reaped child
// that is at once.
func waitEmpty(dir string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		pids, err := procs(dir)
		if err != nil || len(pids) == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %s that throttlebench did not start are in %s: it is left in place", strings.Join(pids, ", "), dir)
		}
		time.Sleep(10 * time.Millisecond)
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

// dying says whether every process listed is exiting already (a zombie
// leader whose threads have not all gone) or gone: a state only the kernel
// moves on from, which no process of anyone's can leave.
func dying(pids []string) bool {
	for _, p := range pids {
		data, err := readFile("/proc/" + p + "/stat")
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return false
		}
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 || i+2 >= len(data) || (data[i+2] != 'Z' && data[i+2] != 'X') {
			return false
		}
	}
	return true
}

// waitDying waits while the processes in dir are all dying, until it is
// empty; it returns what is left when one is not, or the time is up.
func waitDying(dir string, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	for {
		pids, err := procs(dir)
		if err != nil || len(pids) == 0 || !dying(pids) || time.Now().After(deadline) {
			return pids, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Skipped is a directory that looks like a slice but that CleanStale left
// alone, and why.
type Skipped struct {
	Dir, Reason string
}

// CleanStale removes the slices under parent whose owning throttlebench
// process no longer lives (it was SIGKILLed, or the machine lost power in the
// middle of a run). It returns the directories removed and those it left.
//
// It never kills anything. A workload dies with its owner (parent-death
// signal), so a slice that still holds processes is not stale: it belongs to
// a run we cannot see (another PID namespace sharing this cgroup tree) or
// someone put processes there that are not ours. Only empty directories
// named like our slices, without child cgroups, are removed.
func CleanStale(parent string) (removed []string, skipped []Skipped, err error) {
	entries, err := os.ReadDir(parent)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	for _, e := range entries {
		m := sliceNameRE.FindStringSubmatch(e.Name())
		// ReadDir does not follow links: a link named like a slice is no slice.
		if !e.IsDir() || m == nil {
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		start, _ := strconv.ParseUint(m[2], 10, 64)
		if st, err := procStartTime(pid); err == nil && st == start {
			continue // its owner still runs
		}
		dir := filepath.Join(parent, e.Name())
		pids, err := procs(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(pids) > 0 && dying(pids) {
			// The owner's SIGKILL reaches the workload through the parent-death
			// signal, but a throttled group may wait up to a period for the CPU
			// to exit: the leader is a zombie while its threads still go.
			pids, err = waitDying(dir, 3*time.Second)
			if err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if len(pids) > 0 {
			skipped = append(skipped, Skipped{dir, fmt.Sprintf("holds processes %s: a run we cannot see (another PID namespace) or processes that are not ours; left alone", strings.Join(pids, ", "))})
			continue
		}
		if sub, err := os.ReadDir(dir); err == nil && slices.ContainsFunc(sub, fs.DirEntry.IsDir) {
			skipped = append(skipped, Skipped{dir, "has child cgroups, which our slices never have; left alone"})
			continue
		}
		// rmdir: on cgroupfs it fails (EBUSY) if a process entered meanwhile,
		// and for a moment while a dead run's last task is torn down.
		if err := rmdirEmpty(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, dir)
	}
	return removed, skipped, errors.Join(errs...)
}
