package cgroup

import (
	"errors"
	"path/filepath"
	"strings"
)

// Where cgroup files are opened: beneath their hierarchy's mount point
// (cgroupfs_linux.go says how and why).

// errNotCgroupfs says a cgroup file or directory was refused: its path
// crosses a link or a mount, leaves its hierarchy's mount point, or is on
// no cgroup filesystem.
var errNotCgroupfs = errors.New("refused, not on cgroupfs")

// mountOf is the one of mounts that dir is, or lies below: the deepest,
// where one is mounted below another. "" is no mount; the paths are
// compared as they are written, cleaned, as every path of a hierarchy is
// made by joining to its mount point.
func mountOf(dir string, mounts ...string) (string, bool) {
	dir = filepath.Clean(dir)
	best := ""
	for _, m := range mounts {
		if m == "" {
			continue
		}
		m = filepath.Clean(m)
		if (dir == m || strings.HasPrefix(dir, m+"/") || m == "/") && len(m) > len(best) {
			best = m
		}
	}
	return best, best != ""
}
