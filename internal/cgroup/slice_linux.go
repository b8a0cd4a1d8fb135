//go:build linux

package cgroup

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
)

// ErrPermission says a slice could not be created for lack of rights: not
// root, a read-only /sys/fs/cgroup (a container), or a parent not delegated
// to this user.
var ErrPermission = errors.New("no permission to create a cgroup")

// ErrLimitsRefused is bandwidth's: the kernel refused the limits written
// into a new slice, a combination it cannot take.
var ErrLimitsRefused = bandwidth.ErrLimitsRefused

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
//
// containerd/cgroups does its file work (m, set when the slice is made;
// a Slice without one, as in tests, is only removed); what may be made,
// written and removed is decided here.
type Slice struct {
	Cgroup
	m    manager
	acct string // its twin in v1's cpuacct hierarchy, where mounted apart; "" when none
	// twin is the slice's own cpuset in v1's separate cpuset hierarchy
	// (--cpuset): the same name under the same parent path; "" when none.
	// twinMount is that hierarchy's mount point, beneath which it is read
	// and removed.
	twin, twinMount string
	// cpuset is where the slice's cpuset files are: twin, or the slice
	// itself; "" without --cpuset.
	cpuset string
}

// manager is one slice's file work through containerd/cgroups, one
// implementation per version as runc's fs and fs2 managers are
// (slice_v1_linux.go, slice_v2_linux.go), picked once, by newManager.
type manager interface {
	// check refuses, before anything is made, a parent that cannot hold
	// the slice spec asks for.
	check(spec SliceSpec) error
	// setUp has the library take the slice's directory (made already),
	// called group below the mount point and name in its parent, with
	// spec's period and quota.
	setUp(s *Slice, spec SliceSpec, group, name string) error
	// placeCpuset writes spec's CPUs into the slice's cpuset.
	placeCpuset(s *Slice, spec SliceSpec, name string) error
	// addProc moves a process, with all its threads, in.
	addProc(pid int) error
	// usage is the library's reading of the slice's usage counter.
	usage() (time.Duration, error)
	// remove has the library remove the slice (and its cpuacct twin); one
	// gone already is no error. removeTwin removes its cpuset twin at dir.
	remove() error
	removeTwin(fs cgroupfs, dir string) error
}

func newManager(hier Hierarchy) manager {
	if hier.Version == 2 {
		return &v2Slice{cgfs: hier.cgroupfs()}
	}
	return &v1Slice{}
}

// sliceName embeds the owner's PID and start time so that `cleanup` can tell
// a live owner from a dead one even after PID reuse, plus random bits so that
// parallel runs never collide.
var sliceNameRE = regexp.MustCompile(`^tb-(\d+)-(\d+)-[0-9a-f]{8}$`)

// ownerGone is whether name is one of ours by re (its first two groups the
// owner's PID and start time, as a slice's and a scope's names carry them)
// and its owner no longer lives: that PID is gone, or is another process
// now (another start time).
func ownerGone(root string, re *regexp.Regexp, name string) bool {
	m := re.FindStringSubmatch(name)
	if m == nil {
		return false
	}
	pid, _ := strconv.Atoi(m[1])
	start, _ := strconv.ParseUint(m[2], 10, 64)
	st, err := procStartTime(root, pid)
	return err != nil || st != start
}

func newSliceName(root string) (string, error) {
	st, err := procStartTime(root, os.Getpid())
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
	name, err := newSliceName(hier.Root)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(parent, name)
	group := "/" + strings.TrimPrefix(strings.TrimPrefix(dir, hier.MountPoint), "/")
	s := &Slice{Cgroup: Cgroup{Hierarchy: hier, Path: filepath.Join(hier.MountRoot, group), Dir: dir}}
	// throttlebench writes no cgroup.subtree_control but its own default
	// parent's, and makes no parent's twin but the default parent's: a
	// parent the user named must offer what the slice needs already.
	m := newManager(hier)
	if err := m.check(spec); err != nil {
		return nil, err
	}

	// The directory is made here, before the library runs, so that a failure
	// to make it (no rights) is told apart from a limit the kernel refuses.
	// Another run may remove an empty default parent between our mkdirs
	// (RemoveDefaultParent): then make it again. Both are made beneath the
	// mount point's descriptor (cgroupfs_linux.go): a parent swapped for a
	// link since ParentDir resolved it is refused, as bad as it was named.
	for attempt := 0; ; attempt++ {
		if spec.CreateParent {
			if err := hier.cgroupfs().mkdir(parent, 0o755); err != nil && !errors.Is(err, iofs.ErrExist) {
				return nil, permissionError(fmt.Errorf("create parent %s: %w", parent, err))
			}
		}
		err := hier.cgroupfs().mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if errors.Is(err, iofs.ErrNotExist) && spec.CreateParent && attempt < 5 {
			continue
		}
		if errors.Is(err, iofs.ErrNotExist) {
			return nil, &ParentError{Given: spec.Parent, Reason: fmt.Sprintf("%s does not exist", parent)}
		}
		if errors.Is(err, errNotCgroupfs) && !spec.CreateParent {
			return nil, &ParentError{Given: spec.Parent, Reason: fmt.Sprintf("create %s: %v", dir, err)}
		}
		return nil, permissionError(fmt.Errorf("create %s: %w", dir, err))
	}
	if err = m.setUp(s, spec, group, name); err == nil {
		s.m = m
	}
	if err == nil && spec.Limits.Burst > 0 {
		err = s.writeBurst(spec.Limits.Burst)
	}
	if err != nil {
		s.removeDirs()
		// EINVAL (or ERANGE) from a limit file: the kernel refuses this
		// combination of limits, which a sweep skips; anything else stops it.
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ERANGE) {
			err = fmt.Errorf("%w: %w", ErrLimitsRefused, err)
		}
		return nil, fmt.Errorf("set up cgroup %s: %w", dir, permissionError(err))
	}
	if spec.Cpuset != nil {
		// Not a combination of limits: a cpuset refused is refused for
		// every configuration of a sweep alike.
		if err = s.m.placeCpuset(s, spec, name); err != nil {
			s.removeDirs()
			return nil, fmt.Errorf("set up the cpuset of %s: %w", dir, permissionError(err))
		}
	}
	return s, nil
}

// removeDirs removes what a slice that could not be set up made: nothing
// ran in it.
func (s *Slice) removeDirs() {
	for _, d := range []string{s.twin, s.acct, s.Dir} {
		if d != "" {
			s.cgroupfsOf(d).remove(d)
		}
	}
}

// cgroupfsOf is the mount point beneath which the slice's directory dir
// (the slice, or one of its twins) is read and removed.
func (s *Slice) cgroupfsOf(dir string) cgroupfs {
	if dir == s.twin && s.twinMount != "" {
		return cgroupfs{mount: s.twinMount, root: s.Root}
	}
	return s.cgroupfsAt(dir)
}

func permissionError(err error) error {
	if errors.Is(err, iofs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("%w: %w", ErrPermission, err)
	}
	return err
}

// writeBurst writes the CFS burst (Linux 5.14). containerd/cgroups has no
// field for it (neither the OCI spec's LinuxCPU, which it takes on v1, nor
// its own cgroup2.CPU), so it is the one limit written here, beside the
// library, once the library has written the quota it must not exceed.
func (s *Slice) writeBurst(burst time.Duration) error {
	_, name := s.version().bandwidthFiles()
	v := strconv.FormatInt(int64(burst/time.Microsecond), 10)
	if err := s.cgroupfs().writeFile(filepath.Join(s.Dir, name), []byte(v)); err != nil {
		return fmt.Errorf("write burst %sµs: %w", v, err)
	}
	return nil
}

// AddProc moves a process, with all its threads, into the slice: first
// into its cpuset twin, where there is one, which sets the threads' CPU
// affinity, then into the slice (and its cpuacct twin).
func (s *Slice) AddProc(pid int) error {
	if pid <= 0 {
		return fmt.Errorf("move pid %d into %s: not a process", pid, s.Dir)
	}
	if s.m == nil {
		return fmt.Errorf("move pid %d into %s: the slice was not set up", pid, s.Dir)
	}
	return s.m.addProc(pid)
}

// Delete removes the slice once it is empty; a slice that is gone already
// is no error. The caller ends its own workload first (by PID); Delete waits
// for the kernel to let go of it but kills nothing: a process someone else
// moved in is not ours to end, and the slice then stays, with an error that
// names the processes. Its twins (cpuacct, cpuset) go too, whatever became
// of the slice: their processes are the slice's, and they are checked the
// same way.
func (s *Slice) Delete() error {
	var errs []error
	for _, d := range []string{s.Dir, s.acct, s.twin} {
		if d == "" {
			continue
		}
		if err := checkRemovable(s.cgroupfsOf(d), d); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		if s.twin != "" && checkRemovable(s.cgroupfsOf(s.twin), s.twin) == nil {
			errs = append(errs, s.deleteTwin())
		}
		return errors.Join(errs...)
	}
	var err error
	if s.m != nil {
		err = s.m.remove()
	} else {
		err = errors.Join(rmdirEmpty(s.cgroupfsOf(s.Dir), s.Dir), rmdirEmpty(s.cgroupfsOf(s.acct), s.acct))
	}
	if err != nil && !errors.Is(err, iofs.ErrNotExist) {
		err = fmt.Errorf("remove %s: %w", s.Dir, err)
	} else {
		err = nil
	}
	return errors.Join(err, s.deleteTwin())
}

func (s *Slice) deleteTwin() error {
	if s.twin == "" {
		return nil
	}
	var err error
	if s.m != nil {
		err = s.m.removeTwin(s.cgroupfsOf(s.twin), s.twin)
	} else {
		err = rmdirEmpty(s.cgroupfsOf(s.twin), s.twin)
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", s.twin, err)
	}
	return nil
}

// checkRemovable waits until no process is left in the cgroup at dir
// (below fs's mount point) and refuses one with child cgroups, which our
// slices never have: the library's removal would take an empty child with
// it, and it is not ours.
func checkRemovable(fs cgroupfs, dir string) error {
	if err := waitEmpty(fs, dir, 5*time.Second); err != nil {
		return err
	}
	sub, err := fs.readDir(dir)
	if errors.Is(err, iofs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range sub {
		if e.IsDir() {
			return fmt.Errorf("%s has a child cgroup %s that throttlebench did not make: it is left in place", dir, e.Name())
		}
	}
	return nil
}

// rmdirEmpty removes a cgroup directory found empty, beneath fs's mount
// point (cgroupfs.remove). The kernel may refuse
// the rmdir (EBUSY) for a moment while the last task of the group is torn
// down: it retries with growing pauses, 150 ms in all, as the library's
// removal does. A process that entered meanwhile keeps it busy, and the
// directory stays.
func rmdirEmpty(fs cgroupfs, dir string) error {
	if dir == "" {
		return nil
	}
	delay := 10 * time.Millisecond
	var err error
	for i := range 5 {
		if i > 0 {
			time.Sleep(delay)
			delay *= 2
		}
		if err = fs.remove(dir); err == nil || errors.Is(err, iofs.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) {
			return err
		}
	}
	return err
}

// RemoveDefaultParent removes the default parent when no slice is left in
// it, so that a run leaves nothing behind, and its cpuacct twin where v1
// mounts cpuacct apart; while another run uses it the kernel refuses
// (EBUSY or ENOTEMPTY) and it stays. Each goes beneath its own mount
// point (cgroupfs.remove).
func (hier Hierarchy) RemoveDefaultParent() {
	hier.cgroupfs().remove(hier.DefaultParent())
	for _, twin := range hier.TwinParents(hier.DefaultParent(), nil) {
		hier.cgroupfsAt(twin).remove(twin)
	}
}

// procs lists the processes in cgroup dir, below fs's mount point; a
// directory without cgroup.procs (already removed, or not a cgroup) has
// none.
func procs(fs cgroupfs, dir string) ([]string, error) {
	data, err := fs.readFile(filepath.Join(dir, "cgroup.procs"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return strings.Fields(string(data)), err
}

// waitEmpty waits until no process is left in dir. After a reaped child
// that is at once.
func waitEmpty(fs cgroupfs, dir string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		pids, err := procs(fs, dir)
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
func procStartTime(root string, pid int) (uint64, error) {
	data, err := readFile(filepath.Join(root, fmt.Sprintf("/proc/%d/stat", pid)))
	if err != nil {
		return 0, err
	}
	st, err := parseProcStartTime(data)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return st, nil
}

// dying says whether every process listed is on its way out, by KillLeft's
// own rule (killedAlready): a zombie leader whose threads have not all
// gone, a process exiting (PF_EXITING: its memory may be gone already, so
// that nothing of it but the kernel's teardown is left), one with a
// SIGKILL pending, or one gone: states only the kernel moves on from,
// which no process of anyone's can leave. Under load the teardown of a
// killed workload in a throttled slice outlasts the moment its owner's
// death is seen (TestCommandSoak in a clean-clone CI run: a slice left
// with its last process exiting, not yet a zombie).
func dying(root string, pids []string) bool {
	for _, p := range pids {
		pid, err := strconv.Atoi(p)
		if err != nil || !killedAlready(root, pid) {
			return false
		}
	}
	return true
}

// waitDying waits while the processes in dir are all dying, until it is
// empty; it returns what is left when one is not, or the time is up.
func waitDying(root string, fs cgroupfs, dir string, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	for {
		pids, err := procs(fs, dir)
		if err != nil || len(pids) == 0 || !dying(root, pids) || time.Now().After(deadline) {
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

// CleanStale removes the slices under parent (a directory of hier, or of
// one of its twins) whose owning throttlebench
// process no longer lives (it was SIGKILLed, or the machine lost power in the
// middle of a run). It returns the directories removed and those it left.
//
// It never kills anything. A workload dies with its owner (parent-death
// signal), so a slice that still holds processes is not stale: it belongs to
// a run we cannot see (another PID namespace sharing this cgroup tree) or
// someone put processes there that are not ours. Only empty directories
// named like our slices, without child cgroups, are removed.
//
// parent is listed, and each slice read and removed, beneath the mount
// point that holds it (cgroupfs.remove): a parent whose path crosses a
// link is refused, not followed.
func (hier Hierarchy) CleanStale(parent string) (removed []string, skipped []Skipped, err error) {
	cgfs := hier.cgroupfsAt(parent)
	entries, err := cgfs.readDir(parent)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	for _, e := range entries {
		// ReadDir does not follow links: a link named like a slice is no slice.
		if !e.IsDir() || !ownerGone(hier.Root, sliceNameRE, e.Name()) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		pids, err := procs(cgfs, dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(pids) > 0 && dying(hier.Root, pids) {
			// The owner's SIGKILL reaches the workload through the parent-death
			// signal, but a throttled group may wait up to a period for the CPU
			// to exit: the leader is a zombie while its threads still go.
			pids, err = waitDying(hier.Root, cgfs, dir, 3*time.Second)
			if err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if len(pids) > 0 {
			skipped = append(skipped, Skipped{dir, fmt.Sprintf("holds processes %s: a run we cannot see (another PID namespace) or processes that are not ours; left alone", strings.Join(pids, ", "))})
			continue
		}
		if sub, err := cgfs.readDir(dir); err == nil && slices.ContainsFunc(sub, iofs.DirEntry.IsDir) {
			skipped = append(skipped, Skipped{dir, "has child cgroups, which our slices never have; left alone"})
			continue
		}
		// rmdir: on cgroupfs it fails (EBUSY) if a process entered meanwhile,
		// and for a moment while a dead run's last task is torn down.
		if err := rmdirEmpty(cgfs, dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, dir)
	}
	return removed, skipped, errors.Join(errs...)
}

// Tidy is `cleanup`: CleanStale under parent and under its twins, where
// v1 mounts cpuacct or cpuset apart (a slice's twins there have the same
// name under the same parent path), then, for the default parent (own),
// the default parents themselves once empty.
func (h Host) Tidy(hier Hierarchy, parent string, own bool) (removed []string, skipped []Skipped, err error) {
	var cpusets *Hierarchy
	if cs, err := h.CpusetHierarchy(hier); err == nil {
		cpusets = &cs
	}
	var errs []error
	for _, d := range append([]string{parent}, hier.TwinParents(parent, cpusets)...) {
		r, s, err := hier.CleanStale(d)
		removed, skipped, errs = append(removed, r...), append(skipped, s...), append(errs, err)
	}
	if own {
		hier.RemoveDefaultParent()
		if cpusets != nil && hier.Separate(*cpusets) {
			cpusets.RemoveDefaultParent()
		}
	}
	return removed, skipped, errors.Join(errs...)
}
