package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"

	"github.com/throttlebench/throttlebench/internal/badinput"
)

// TargetError says why a path is no place for a result file.
type TargetError struct {
	Reason string
	// link: the path leads through a symbolic link that is not followed
	// (see linkRule); CheckLinks reports only these.
	link bool
}

func (e *TargetError) Error() string { return e.Reason }

// Target checks, before any work is done, that path can take a result file:
// a regular file we may replace, or a new file in an existing, writable
// directory. It returns the path to write (a link's target).
//
// A symbolic link anywhere on the way (a directory or the file itself) is
// followed only by linkRule: where the kernel's fs.protected_symlinks would
// let the invoking user follow it, and only when it belongs to that user or
// to root. A link to a regular file is then written through: its target is
// replaced and the link stays. A link someone else planted is refused,
// naming it and its owner.
//
// A device (/dev/full), a directory, a pipe, a dangling link, a missing
// directory, a read-only or unwritable place, and the kernel's pseudo
// filesystems (/proc, /sys, cgroupfs: a "regular" interface file there is a
// kernel knob) are refused.
func Target(path string) (string, error) {
	p, err := locate(path)
	if err != nil {
		return "", err
	}
	defer p.close()
	if err := p.check(); err != nil {
		return "", err
	}
	return p.path(), nil
}

// CheckLinks refuses a path that leads through a symbolic link linkRule
// does not follow; anything else about it (a missing part) is left to the
// caller. It is the check for paths that are not files, such as --parent.
func CheckLinks(path string) error {
	p, err := locate(path)
	var te *TargetError
	if errors.As(err, &te) && te.link {
		return err
	}
	if err == nil {
		p.close()
	}
	return nil
}

// invoker is the user throttlebench runs for: under sudo the one who ran
// sudo (SUDO_UID), else the effective user. SUDO_UID counts only for root:
// for anyone else it names no one whose rights we hold.
func invoker() uint32 {
	euid := uint32(os.Geteuid())
	if uid, _, ok := sudoOwner(); ok {
		return uid
	}
	return euid
}

// sudoOwner is who a new file belongs to under sudo: SUDO_UID and
// SUDO_GID, when we are root and both are numbers.
func sudoOwner() (uid, gid uint32, ok bool) {
	if os.Geteuid() != 0 {
		return 0, 0, false
	}
	u, err1 := strconv.ParseUint(os.Getenv("SUDO_UID"), 10, 32)
	g, err2 := strconv.ParseUint(os.Getenv("SUDO_GID"), 10, 32)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uint32(u), uint32(g), true
}

// who names a user for a message: "nobody (uid 65534)".
func who(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return fmt.Sprintf("%s (uid %s)", u.Username, id)
	}
	return "uid " + id
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a file"
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

// CheckFlag is Target as a flag's check, before any work is done: a path
// that is no place for an output is bad input naming the flag (exit 2);
// "" (stdout, or none) is fine. The write checks it again.
func CheckFlag(flag, path string) error {
	if path == "" {
		return nil
	}
	if _, err := Target(path); err != nil {
		return badinput.Errorf(flag, "invalid --%s %q: %v", flag, path, err)
	}
	return nil
}
