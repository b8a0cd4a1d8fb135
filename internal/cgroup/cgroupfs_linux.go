//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Every cgroup file throttlebench itself writes or reads, and every cgroup
// directory it makes, lists or removes, is opened beneath the descriptor
// of its hierarchy's mount point, as runc's cgroup code opens them
// (libcontainer/cgroups' OpenFile): the mount point is opened with O_PATH
// and checked with fstatfs to be a cgroup filesystem, and the file is
// opened relative to it by openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS|RESOLVE_NO_SYMLINKS|RESOLVE_NO_XDEV,
// so that it cannot resolve through a link, climb out, or cross into
// another mount. Nothing below a cgroup mount point can be a link (cgroupfs
// refuses symlink(2), even to root), so refusing every link refuses nothing
// a cgroup tree holds. Without openat2 (Linux < 5.6, or a seccomp filter
// that answers it ENOSYS or EPERM) the path is walked a component at a time
// with O_NOFOLLOW, and the directory written in and the file opened are
// checked with fstatfs for the cgroup magic.
//
// A directory is made (mkdirat) and removed (unlinkat with AT_REMOVEDIR)
// by its name in its parent, opened so. A removal whose path crosses a
// link is refused with the rest, so that no rmdir (of a slice, a twin, a
// default parent, a stale slice under a --parent) can take a directory
// outside cgroupfs: rmdir follows no link in the last component, and
// those on the way are what this refuses. Reads go the same way
// (O_RDONLY), for the same reason at the other end: the processes that
// decide whether a directory is removed, or killed (cgroup.procs), and a
// quota, a usage or a counter that a report says a cgroup has, are read
// from the cgroup, never from a file that a link planted on the way leads
// to. /proc and the other files outside the cgroup mounts are read by
// their plain paths. A test's fixture tree (Hierarchy.Root) is read and
// removed in exactly as it is written in: cgroupfs.root says how.
//
// ParentDir checks a --parent when it is resolved, before anything is
// made (atomicfile's link rules, and that it lies in the cpu hierarchy);
// this is the check at the write, the read and the removal, which holds
// even if a directory on the way is swapped between the two: nothing is
// written, read or removed outside cgroupfs.
//
// containerd/cgroups writes the limit files itself, reads its statistics
// and removes the slices it set up, through its own paths (os.OpenFile,
// os.Remove): they are the paths ParentDir resolved beneath the mount
// point, and cgroupfs holds no links to lead them elsewhere.

// resolveBeneath is how openat2 resolves a path below the mount point.
const resolveBeneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_XDEV

// cgroupfs is one hierarchy's mount point, beneath which its files are
// opened.
type cgroupfs struct {
	mount string
	// root is the injected root (Hierarchy.Root). Below a fixture's root,
	// a tree in a temporary directory stands in for cgroupfs in tests:
	// there the filesystem that holds the root counts as cgroupfs; every
	// other check holds. "" and "/" are this machine's: only the cgroup
	// magic counts.
	root string
}

// cgroupfs is the hierarchy's mount point, for its files' writes, reads
// and removals.
func (hier Hierarchy) cgroupfs() cgroupfs { return cgroupfs{mount: hier.MountPoint, root: hier.Root} }

// cgroupfsAt is the mount point that holds dir, among the hierarchy's
// own, its cpuacct hierarchy's (Acct) and, for a dir in neither, the
// cpuset hierarchy's (a slice's twins and their parents are in those).
// For a dir in none of them it is the hierarchy's own, which refuses it.
func (hier Hierarchy) cgroupfsAt(dir string) cgroupfs {
	if mp, ok := mountOf(dir, hier.MountPoint, hier.Acct); ok {
		return cgroupfs{mount: mp, root: hier.Root}
	}
	if cs, err := (Host{Root: hier.Root}).CpusetHierarchy(hier); err == nil {
		if mp, ok := mountOf(dir, cs.MountPoint); ok {
			return cgroupfs{mount: mp, root: hier.Root}
		}
	}
	return hier.cgroupfs()
}

// cgroupfsAt is the cgroup mount, of this host's mount table, that holds
// dir.
func (h Host) cgroupfsAt(dir string) (cgroupfs, error) {
	t, err := h.mounts()
	if err != nil {
		return cgroupfs{}, err
	}
	var mounts []string
	for _, m := range t.all {
		if m.FSType == "cgroup" || m.FSType == "cgroup2" {
			mounts = append(mounts, filepath.Join(t.root, m.MountPoint))
		}
	}
	mp, ok := mountOf(dir, mounts...)
	if !ok {
		return cgroupfs{}, &os.PathError{Op: "open", Path: dir, Err: fmt.Errorf("%w: no cgroup mount holds it", errNotCgroupfs)}
	}
	return cgroupfs{mount: mp, root: h.Root}, nil
}

// readFile reads the cgroup file path, below the mount point, as readFile
// reads a pseudo-file: whole, through maxFileSize.
func (c cgroupfs) readFile(path string) ([]byte, error) {
	f, err := c.open("open", path, unix.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxFileSize))
}

// readDir lists the cgroup directory path, below the mount point, sorted
// by name, as os.ReadDir does.
func (c cgroupfs) readDir(path string) ([]os.DirEntry, error) {
	f, err := c.open("open", path, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// writeFile writes data to the cgroup file path, below the mount point,
// in one write, as os.WriteFile did.
func (c cgroupfs) writeFile(path string, data []byte) error {
	f, err := c.open("open", path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}

// mkdir makes the cgroup directory path, below the mount point: mkdirat
// beneath its parent's descriptor, opened as a file is.
func (c cgroupfs) mkdir(path string, perm uint32) error {
	return c.inParent("mkdir", path, func(dir int, name string) error { return unix.Mkdirat(dir, name, perm) })
}

// remove removes the cgroup directory path, below the mount point, as
// os.Remove removes a directory: unlinkat with AT_REMOVEDIR beneath its
// parent's descriptor, opened as a file is. Its errors are os.Remove's
// (*os.PathError, Op "remove", with the kernel's errno: ENOENT, EBUSY,
// ENOTEMPTY), so that its callers tell them apart as they did.
func (c cgroupfs) remove(path string) error {
	return c.inParent("remove", path, func(dir int, name string) error { return unix.Unlinkat(dir, name, unix.AT_REMOVEDIR) })
}

// inParent does do to the directory path, by its name in its parent,
// opened beneath the mount point; op names the operation in its errors.
// The mount point itself has no parent below it.
func (c cgroupfs) inParent(op, path string, do func(dir int, name string) error) error {
	path = filepath.Clean(path)
	name := filepath.Base(path)
	if path == filepath.Clean(c.mount) || name == ".." || name == "." || name == "/" {
		return &os.PathError{Op: op, Path: path, Err: fmt.Errorf("%w: no directory below the mount point %s", errNotCgroupfs, c.mount)}
	}
	dir, err := c.open(op, filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY, 0)
	if pe, ok := err.(*os.PathError); ok {
		pe.Path = path // the directory asked for, not its parent
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := do(int(dir.Fd()), name); err != nil {
		return &os.PathError{Op: op, Path: path, Err: err}
	}
	return nil
}

// open opens path, below the mount point, beneath the mount point's
// descriptor; op names the operation in its errors.
func (c cgroupfs) open(op, path string, flags int, mode uint32) (*os.File, error) {
	fd, err := c.openFd(op, path, flags, mode)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openFd is open's descriptor, for a file read without the runtime's
// poller (counterFile).
func (c cgroupfs) openFd(op, path string, flags int, mode uint32) (int, error) {
	fail := func(err error) (int, error) { return -1, &os.PathError{Op: op, Path: path, Err: err} }
	mount := filepath.Clean(c.mount)
	rel, err := filepath.Rel(mount, filepath.Clean(path))
	// A path and its mount point are both absolute, or (a test's fixture
	// named from the working directory, testdata/...) both relative.
	if err != nil || filepath.IsAbs(path) != filepath.IsAbs(mount) || rel == ".." || strings.HasPrefix(rel, "../") {
		return fail(fmt.Errorf("%w: the path leaves the mount point %s", errNotCgroupfs, mount))
	}
	fixture, err := c.fixtureMagic()
	if err != nil {
		return fail(err)
	}
	mfd, err := unix.Open(mount, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(fmt.Errorf("the mount point %s: %w", mount, err))
	}
	defer unix.Close(mfd)
	if err := onCgroupfs(mfd, fixture); err != nil {
		return fail(fmt.Errorf("the mount point %s: %w", mount, err))
	}
	fd, err := openBeneath(mfd, rel, flags|unix.O_CLOEXEC, mode, fixture)
	switch {
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV):
		return fail(fmt.Errorf("%w: the path crosses a link or another mount below %s", errNotCgroupfs, mount))
	case err != nil:
		return fail(err)
	}
	// openat2 kept the path on the mount already; checked again as the
	// walk's file is, for the same word on both ways.
	if err := onCgroupfs(fd, fixture); err != nil {
		unix.Close(fd)
		return fail(err)
	}
	return fd, nil
}

// openBeneath opens rel beneath the directory mfd: by openat2 where the
// kernel has it, else by walkBeneath.
func openBeneath(mfd int, rel string, flags int, mode uint32, fixture int64) (int, error) {
	how := &unix.OpenHow{Flags: uint64(flags), Resolve: resolveBeneath}
	if flags&unix.O_CREAT != 0 {
		how.Mode = uint64(mode)
	}
	fd, err := unix.Openat2(mfd, rel, how)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		// No openat2 (Linux < 5.6), or a seccomp filter that does not
		// know it (older container runtimes answer EPERM). A real EPERM
		// is met again by the walk.
		return walkBeneath(mfd, rel, flags, mode, fixture)
	}
	return fd, err
}

// walkBeneath opens rel beneath the directory mfd without openat2: a
// component at a time, each directory opened with O_NOFOLLOW (a link on the
// way is refused with ELOOP), the last one's parent checked for the cgroup
// magic before the file is opened in it, also with O_NOFOLLOW. rel is
// clean and below mfd (no "..").
func walkBeneath(mfd int, rel string, flags int, mode uint32, fixture int64) (int, error) {
	if rel == "." {
		return unix.Openat(mfd, ".", flags|unix.O_NOFOLLOW, mode)
	}
	parts := strings.Split(rel, "/")
	dir := mfd
	defer func() {
		if dir != mfd {
			unix.Close(dir)
		}
	}()
	for _, p := range parts[:len(parts)-1] {
		if p == ".." {
			return -1, unix.EXDEV
		}
		next, err := unix.Openat(dir, p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, linkError(dir, p, err)
		}
		if dir != mfd {
			unix.Close(dir)
		}
		dir = next
	}
	if err := onCgroupfs(dir, fixture); err != nil {
		return -1, err
	}
	last := parts[len(parts)-1]
	if last == ".." {
		return -1, unix.EXDEV
	}
	fd, err := unix.Openat(dir, last, flags|unix.O_NOFOLLOW, mode)
	if err != nil {
		return -1, linkError(dir, last, err)
	}
	return fd, nil
}

// linkError is ELOOP where name in dir is a link: O_NOFOLLOW with
// O_DIRECTORY (or O_PATH) says ENOTDIR for a link, not ELOOP.
func linkError(dir int, name string, err error) error {
	var st unix.Stat_t
	if errors.Is(err, unix.ENOTDIR) && unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return unix.ELOOP
	}
	return err
}

// onCgroupfs refuses fd unless it is on a cgroup filesystem (v1's or
// v2's), or, in a test's fixture tree, on the fixture's own filesystem
// (fixture, its magic; 0 on a machine).
func onCgroupfs(fd int, fixture int64) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return err
	}
	switch t := int64(st.Type); {
	case t == unix.CGROUP_SUPER_MAGIC || t == unix.CGROUP2_SUPER_MAGIC:
		return nil
	case fixture != 0 && t == fixture:
		return nil
	default:
		return fmt.Errorf("%w (filesystem magic %#x)", errNotCgroupfs, t)
	}
}

// fixtureMagic is the filesystem magic that stands in for cgroupfs below
// a fixture's root: that of the root's own filesystem, for a mount point
// below the root; 0 on this machine (a root of "" or "/").
func (c cgroupfs) fixtureMagic() (int64, error) {
	root := filepath.Clean(c.root)
	if c.root == "" || root == "/" {
		return 0, nil
	}
	if !strings.HasPrefix(filepath.Clean(c.mount), root+"/") {
		return 0, fmt.Errorf("%w: the mount point %s is not below the fixture's root %s", errNotCgroupfs, c.mount, root)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(root, &st); err != nil {
		return 0, err
	}
	return int64(st.Type), nil
}
