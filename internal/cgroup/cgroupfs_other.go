//go:build !linux

package cgroup

import (
	"fmt"
	"os"
)

// cgroupfs is a hierarchy's mount point. Only Linux has cgroups (and
// openat2): elsewhere, where only the tests' fixture trees are read, a
// cgroup file is read by its path, if it lies below the mount point.
type cgroupfs struct{ mount, root string }

func (hier Hierarchy) cgroupfs() cgroupfs { return cgroupfs{mount: hier.MountPoint, root: hier.Root} }

func (c cgroupfs) readFile(path string) ([]byte, error) {
	if _, ok := mountOf(path, c.mount); !ok {
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: the path leaves the mount point %s", errNotCgroupfs, c.mount)}
	}
	return readFile(path)
}

// cgroupfsAt: any directory, read by its path.
func (h Host) cgroupfsAt(dir string) (cgroupfs, error) {
	return cgroupfs{mount: dir, root: h.Root}, nil
}
