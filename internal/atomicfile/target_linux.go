//go:build linux

package atomicfile

import (
	"golang.org/x/sys/unix"
)

// pseudoFS names the kernel filesystem dir is on, if it is one.
func pseudoFS(dir string) (string, bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
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

// writable asks the kernel whether this process may write path: it sees
// read-only mounts and, for a user who is not root, the permission bits.
func writable(path string) error {
	return unix.Access(path, unix.W_OK)
}
