//go:build linux

package cgroup

import (
	"io/fs"
	"syscall"
)

// inode is fi's inode number: a cgroup's kernfs id.
func inode(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ino, true
}
