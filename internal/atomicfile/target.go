package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// TargetError says why a path is no place for a result file.
type TargetError struct{ Reason string }

func (e *TargetError) Error() string { return e.Reason }

// Target checks, before any work is done, that path can take a result file:
// a regular file we may replace, or a new file in an existing, writable
// directory. A symbolic link is written through: its target is replaced and
// the link stays. It returns the path to write (the link's target).
//
// A device (/dev/full), a directory, a pipe, a dangling link, a missing
// directory, a read-only or unwritable place, and the kernel's pseudo
// filesystems (/proc, /sys, cgroupfs: a "regular" interface file there is a
// kernel knob) are refused.
func Target(path string) (string, error) {
	fail := func(format string, a ...any) (string, error) {
		return "", &TargetError{fmt.Sprintf(format, a...)}
	}
	if path == "" {
		return fail("empty file name")
	}
	resolved := path
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if resolved, err = filepath.EvalSymlinks(path); err != nil {
			return fail("%s is a symbolic link that leads nowhere (%v)", path, unwrapPath(err))
		}
		fi, err = os.Lstat(resolved)
	}
	switch {
	case err == nil && fi.IsDir():
		return fail("%s is a directory", resolved)
	case err == nil && !fi.Mode().IsRegular():
		return fail("%s is not a regular file (%s)", resolved, kind(fi.Mode()))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fail("%v", unwrapPath(err))
	}
	exists := err == nil
	dir := filepath.Dir(resolved)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("directory %s does not exist", dir)
	case err != nil:
		return fail("directory %s: %v", dir, unwrapPath(err))
	case !st.IsDir():
		return fail("%s is not a directory", dir)
	}
	if name, ok := pseudoFS(dir); ok {
		return fail("%s is on %s, a kernel filesystem, not a place for results", dir, name)
	}
	// The file is written beside its target and renamed over it: the
	// directory must take a new file, and an existing file must be ours to
	// replace.
	if err := writable(dir); err != nil {
		return fail("directory %s is not writable: %v", dir, err)
	}
	if exists {
		if err := writable(resolved); err != nil {
			return fail("%s is not writable: %v", resolved, err)
		}
	}
	return resolved, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a plain file"
}

// unwrapPath drops the *PathError wrapper, whose text repeats the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
