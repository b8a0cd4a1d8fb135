//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// CanCreateSlice says whether a slice could be created under the default
// parent, and why (not), without creating anything to find out: the
// default parent (or, while it does not exist, the mount point it would be
// made in) must be writable by this process's effective user, on a
// writable mount. On v2 the mount point's cgroup.subtree_control must
// enable cpu for its children already: throttlebench writes no
// cgroup.subtree_control but its own default parent's.
func (hier Hierarchy) CanCreateSlice() (bool, string) {
	dir := hier.DefaultParent()
	if _, err := os.Stat(dir); err != nil {
		dir = hier.MountPoint
	}
	if err := writable(dir); err != nil {
		return false, fmt.Sprintf("%s is not writable: %v", dir, err)
	}
	if why := hier.version().topRefuses(hier); why != "" {
		return false, why
	}
	return true, fmt.Sprintf("%s is writable", dir)
}

// writable checks write access for the effective user (AT_EACCESS), which
// also fails on a read-only mount (EROFS).
func writable(p string) error {
	err := unix.Faccessat(unix.AT_FDCWD, p, unix.W_OK, unix.AT_EACCESS)
	if errors.Is(err, unix.EROFS) {
		return errors.New("read-only file system")
	}
	return err
}
