//go:build linux

package atomicfile

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinks is the kernel's own limit on links followed in one lookup.
const maxLinks = 40

// place is where a path leads: the directory the file is (or goes) in,
// held open, and its name there.
type place struct {
	dir     int          // an O_PATH descriptor of the directory
	dirPath string       // the directory as walked, for messages
	name    string       // the file's name in dir
	st      *unix.Stat_t // the file, not followed; nil when it does not exist
}

func (p *place) path() string { return filepath.Join(p.dirPath, p.name) }
func (p *place) close()       { unix.Close(p.dir) }

// step is one component still to walk; via is the link whose target it
// came from ("" for the path as given), so that a missing part of a link's
// target is told as a link that leads nowhere.
type step struct{ name, via string }

// locate walks path one component at a time with openat(O_PATH|O_NOFOLLOW)
// from a directory descriptor it holds, so that each step lands where the
// previous one was, whatever is renamed meanwhile. A symbolic link, in a
// directory part or as the file itself, is read and followed only when
// linkRule allows it. The directories above the file are walked again at
// each write rather than held open from the check before the run: a
// directory its owner renamed on purpose during a sweep is not written
// behind their back, and a link swapped in is judged by the same rule as at
// the start, with no window between the walk and the write (which is
// relative to the descriptor the walk ends on).
func locate(path string) (*place, error) {
	fail := func(link bool, format string, a ...any) (*place, error) {
		return nil, &TargetError{Reason: fmt.Sprintf(format, a...), link: link}
	}
	if path == "" {
		return fail(false, "empty file name")
	}
	user := invoker()
	shown, start := ".", "."
	if filepath.IsAbs(path) {
		shown, start = "/", "/"
	}
	dir, err := unix.Open(start, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(false, "%s: %v", start, err)
	}
	defer func() {
		if dir >= 0 {
			unix.Close(dir)
		}
	}()
	todo := steps(path, "")
	if len(todo) == 0 { // "/" or "."
		todo = []step{{name: "."}}
	}
	links := 0
	for len(todo) > 0 {
		s := todo[0]
		todo = todo[1:]
		last := len(todo) == 0
		here := filepath.Join(shown, s.name)
		fd, err := unix.Openat(dir, s.name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		switch {
		case errors.Is(err, unix.ENOENT) && s.via != "":
			return fail(false, "%s is a symbolic link that leads nowhere (%s does not exist)", s.via, here)
		case errors.Is(err, unix.ENOENT) && last:
			p := &place{dir: dir, dirPath: shown, name: s.name}
			dir = -1
			return p, nil
		case errors.Is(err, unix.ENOENT):
			return fail(false, "directory %s does not exist", here)
		case err != nil:
			return fail(false, "%s: %v", here, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return fail(false, "%s: %v", here, err)
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			// Read through the descriptor: the target is the link's whose
			// owner we judge, not a link put in its place since.
			target, err := readlink(fd)
			unix.Close(fd)
			if err != nil {
				return fail(false, "%s: %v", here, err)
			}
			var dst unix.Stat_t
			if err := unix.Fstat(dir, &dst); err != nil {
				return fail(false, "%s: %v", shown, err)
			}
			if why := linkRule(&st, &dst, shown, user); why != "" {
				return fail(true, "%s is a symbolic link owned by %s%s", here, who(st.Uid), why)
			}
			if links++; links > maxLinks {
				return fail(false, "%s: too many levels of symbolic links", path)
			}
			if filepath.IsAbs(target) {
				root, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
				if err != nil {
					return fail(false, "/: %v", err)
				}
				unix.Close(dir)
				dir, shown = root, "/"
			}
			next := steps(target, here)
			if len(next) == 0 {
				next = []step{{name: ".", via: here}}
			}
			todo = append(next, todo...)
		case unix.S_IFDIR:
			if last {
				// The file named is a directory: check says so.
				unix.Close(fd)
				p := &place{dir: dir, dirPath: shown, name: s.name, st: &st}
				dir = -1
				return p, nil
			}
			unix.Close(dir)
			dir, shown = fd, here
		default:
			unix.Close(fd)
			if !last {
				return fail(false, "%s is not a directory", here)
			}
			p := &place{dir: dir, dirPath: shown, name: s.name, st: &st}
			dir = -1
			return p, nil
		}
	}
	panic("unreachable: the last step returns")
}

// steps splits a path into the names to walk.
func steps(path, via string) []step {
	var s []step
	for _, n := range strings.Split(path, "/") {
		if n != "" && n != "." {
			s = append(s, step{name: n, via: via})
		}
	}
	return s
}

func readlink(fd int) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(fd, "", buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// linkRule says why a link is not followed ("" when it is). A link is
// followed only
//   - as the kernel's fs.protected_symlinks follows it for the invoking
//     user, whether or not that sysctl is on here: in a sticky
//     world-writable directory (/tmp), only a link of the follower's or
//     of the directory's owner; and
//   - when it is the invoking user's or root's: a link someone else made
//     decides where root writes nowhere.
func linkRule(link, dir *unix.Stat_t, dirPath string, user uint32) string {
	const stickyWorld = unix.S_ISVTX | unix.S_IWOTH
	if dir.Mode&stickyWorld == stickyWorld && link.Uid != user && link.Uid != dir.Uid {
		return fmt.Sprintf(" in %s, a sticky world-writable directory owned by %s, where a link is followed only for its owner or the directory's (the kernel's fs.protected_symlinks rule), and %s runs this",
			dirPath, who(dir.Uid), who(user))
	}
	if link.Uid != user && link.Uid != 0 {
		if user == 0 {
			return ", not by root, who runs this: a link someone else made is never followed"
		}
		return fmt.Sprintf(", not by the invoking user, %s, nor root: a link someone else made is never followed", who(user))
	}
	return ""
}

// check refuses what p cannot take: Target's rules.
func (p *place) check() error {
	fail := func(format string, a ...any) error { return &TargetError{Reason: fmt.Sprintf(format, a...)} }
	if p.st != nil {
		m := fileMode(p.st.Mode)
		switch {
		case m.IsDir():
			return fail("%s is a directory", p.path())
		case !m.IsRegular():
			return fail("%s is not a regular file (%s)", p.path(), kind(m))
		}
	}
	if name, ok := pseudoFS(p.dir); ok {
		return fail("%s is on %s, a kernel filesystem, not a place for results", p.dirPath, name)
	}
	// The file is written beside its target and renamed over it: the
	// directory must take a new file, and an existing file must be ours to
	// replace. access(2) sees read-only mounts and, for a user who is not
	// root, the permission bits.
	if err := unix.Faccessat(p.dir, ".", unix.W_OK, 0); err != nil {
		return fail("directory %s is not writable: %v", p.dirPath, err)
	}
	if p.st != nil {
		if err := unix.Faccessat(p.dir, p.name, unix.W_OK, 0); err != nil {
			return fail("%s is not writable: %v", p.path(), err)
		}
	}
	return nil
}

// pseudoFS names the kernel filesystem the directory dir is on, if it is
// one.
func pseudoFS(dir int) (string, bool) {
	var st unix.Statfs_t
	if unix.Fstatfs(dir, &st) != nil {
		return "", false
	}
	switch int64(st.Type) {
	case unix.PROC_SUPER_MAGIC:
		return "procfs", true
	case unix.SYSFS_MAGIC:
		return "sysfs", true
	case unix.CGROUP_SUPER_MAGIC:
		return "cgroupfs", true
	case unix.CGROUP2_SUPER_MAGIC:
		return "cgroup2", true
	case unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC, unix.SECURITYFS_MAGIC, unix.BPF_FS_MAGIC, unix.PSTOREFS_MAGIC, unix.EFIVARFS_MAGIC:
		return "a kernel interface filesystem", true
	}
	return "", false
}

func writeFile(path string, write func(io.Writer) error) error {
	return writeFileBetween(path, write, nil)
}

// writeFileBetween is writeFile with between, when not nil, run between
// the walk and the write: the window in which a link can be swapped in,
// which tests open.
func writeFileBetween(path string, write func(io.Writer) error, between func()) error {
	p, err := locate(path)
	if err == nil {
		defer p.close()
		err = p.check()
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if between != nil {
		between()
	}
	return p.write(write)
}

// write creates the file in p's directory as a temporary file (openat,
// O_CREAT|O_EXCL|O_NOFOLLOW: never through a link) and renames it over
// p's name (renameat, which replaces a name and follows nothing).
func (p *place) write(write func(io.Writer) error) (err error) {
	var tmp string
	fd := -1
	for try := 0; fd < 0; try++ {
		tmp = "." + p.name + "." + randomHex() + ".tmp"
		fd, err = unix.Openat(p.dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil && (!errors.Is(err, unix.EEXIST) || try == 100) {
			return fmt.Errorf("create a temporary file in %s: %w", p.dirPath, err)
		}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(p.dirPath, tmp))
	renamed := false
	defer func() {
		// On every path that did not rename it, a panic in write included.
		if !renamed {
			f.Close()
			unix.Unlinkat(p.dir, tmp, 0)
		}
	}()
	bw := bufio.NewWriter(f)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = p.settle(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = unix.Renameat(p.dir, tmp, p.dir, p.name); err != nil {
		return fmt.Errorf("rename into %s: %w", p.path(), err)
	}
	renamed = true
	return nil
}

// settle gives the temporary file the mode and owner of the file it
// replaces, as it is now, or a new file's: 0644, and the invoking user's
// under sudo. Only the permission bits are kept: a set-id bit has no place
// on a result. What is there now must still be a regular file: anything
// else put there since the walk (a link, a directory, a device) is left.
func (p *place) settle(tmp *os.File) error {
	mode, uid, gid := uint32(0o644), -1, -1
	if u, g, ok := sudoOwner(); ok {
		uid, gid = int(u), int(g)
	}
	var now unix.Stat_t
	err := unix.Fstatat(p.dir, p.name, &now, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case err == nil && now.Mode&unix.S_IFMT != unix.S_IFREG:
		return &TargetError{Reason: fmt.Sprintf("%s became %s since it was checked; it is not replaced", p.path(), kind(fileMode(now.Mode)))}
	case err == nil:
		mode, uid, gid = now.Mode&0o777, int(now.Uid), int(now.Gid)
	case !errors.Is(err, unix.ENOENT):
		return fmt.Errorf("%s: %w", p.path(), err)
	}
	if uid >= 0 && (uid != os.Geteuid() || gid != os.Getegid()) {
		// Only root may give a file away; anyone else keeps what they
		// replace as their own, as before.
		if err := tmp.Chown(uid, gid); err != nil && os.Geteuid() == 0 {
			return fmt.Errorf("keep the owner of %s: %w", p.path(), err)
		}
	}
	// After the chown, which clears set-id bits, and regardless of umask.
	return tmp.Chmod(fs.FileMode(mode))
}

func randomHex() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fileMode turns a stat mode into an fs.FileMode's type bits.
func fileMode(m uint32) fs.FileMode {
	t := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		t |= fs.ModeDir
	case unix.S_IFLNK:
		t |= fs.ModeSymlink
	case unix.S_IFCHR:
		t |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		t |= fs.ModeDevice
	case unix.S_IFIFO:
		t |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		t |= fs.ModeSocket
	case unix.S_IFREG:
	default:
		t |= fs.ModeIrregular
	}
	return t
}

// writeDir: see WriteDir.
func writeDir(path string, files []File, check func([]string) error) (err error) {
	// Rendered first: an error leaves nothing behind.
	bodies := make([][]byte, len(files))
	for i, f := range files {
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			return err
		}
		bodies[i] = b.Bytes()
	}
	p, err := locate(path)
	if err != nil {
		return err
	}
	defer p.close()
	writeAll := func(dir int, dirPath string) error {
		for i, f := range files {
			body := bodies[i]
			fp := &place{dir: dir, dirPath: dirPath, name: f.Name}
			if err := fp.write(func(w io.Writer) error { _, err := w.Write(body); return err }); err != nil {
				return err
			}
		}
		return nil
	}
	if p.st != nil {
		if p.st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return &TargetError{Reason: fmt.Sprintf("%s is %s, not a directory", p.path(), kind(fileMode(p.st.Mode)))}
		}
		fd, err := unix.Openat(p.dir, p.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return &TargetError{Reason: fmt.Sprintf("%s: %v", p.path(), err)}
		}
		d := os.NewFile(uintptr(fd), p.path())
		defer d.Close()
		names, err := d.Readdirnames(-1)
		if err != nil {
			return &TargetError{Reason: fmt.Sprintf("%s: %v", p.path(), err)}
		}
		in := &place{dir: fd, dirPath: p.path(), name: "."}
		if err := in.check(); err != nil {
			return err
		}
		if check != nil {
			if err := check(names); err != nil {
				return err
			}
		}
		return writeAll(fd, p.path())
	}
	if err := p.check(); err != nil {
		return err
	}
	if check != nil {
		if err := check(nil); err != nil {
			return err
		}
	}
	// Built beside, then renamed into place whole; RENAME_NOREPLACE, so
	// that whatever took the name since (a link) is left, not replaced.
	tmp := "." + p.name + "." + randomHex() + ".tmp"
	if err := unix.Mkdirat(p.dir, tmp, 0o700); err != nil {
		return fmt.Errorf("create a temporary directory in %s: %w", p.dirPath, err)
	}
	fd, err := unix.Openat(p.dir, tmp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Unlinkat(p.dir, tmp, unix.AT_REMOVEDIR)
		return fmt.Errorf("create a temporary directory in %s: %w", p.dirPath, err)
	}
	d := os.NewFile(uintptr(fd), filepath.Join(p.dirPath, tmp))
	defer d.Close()
	renamed := false
	defer func() {
		if !renamed {
			for _, f := range files {
				unix.Unlinkat(fd, f.Name, 0)
			}
			unix.Unlinkat(p.dir, tmp, unix.AT_REMOVEDIR)
		}
	}()
	if err := writeAll(fd, filepath.Join(p.dirPath, tmp)); err != nil {
		return err
	}
	if u, g, ok := sudoOwner(); ok {
		if err := d.Chown(int(u), int(g)); err != nil {
			return err
		}
	}
	if err := d.Chmod(0o755); err != nil {
		return err
	}
	err = unix.Renameat2(p.dir, tmp, p.dir, p.name, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		// A filesystem without RENAME_NOREPLACE (NFS): a directory still
		// replaces no link or file (ENOTDIR), only an empty directory.
		err = unix.Renameat(p.dir, tmp, p.dir, p.name)
	}
	if err != nil {
		return fmt.Errorf("rename into %s: %w", p.path(), err)
	}
	renamed = true
	return nil
}
