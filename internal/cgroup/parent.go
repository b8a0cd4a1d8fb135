package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
)

// ParentError says why a directory cannot hold slices. Nothing has been
// created when it is returned: a parent the user names must already exist.
type ParentError struct {
	Given  string // what was asked for
	Reason string
}

func (e *ParentError) Error() string { return e.Reason }

// DefaultParent is where slices go unless the user says otherwise: a
// throttlebench directory at the top of the visible hierarchy. It is the only
// parent throttlebench ever creates.
func (hier Hierarchy) DefaultParent() string {
	return filepath.Join(hier.MountPoint, "throttlebench")
}

// DefaultParentWeight is the CPU weight (v2's scale; cpu.shares 102400 on
// v1, the same weight to the kernel) throttlebench gives its own default
// parent: the highest v2 allows, a hundred times the kernel's default, so
// that other work at ordinary weight yields a CPU to the measured slices
// and their quota, not their neighbours, is what is measured. It binds
// only while both want a CPU; a slice's quota still caps it.
//
// The kernel's default weight is not enough beside other work, even at
// nice 19: a slice that sleeps between requests wakes with its group's
// weight decayed on that CPU and waits for a nice-19 loop's slice. On this
// host's 6.18 (2 CPUs, cgroup v1), a thread waking every 10 ms for 5 ms of
// work in a slice of a parent, beside a nice-19 loop pinned on each CPU,
// three runs per weight: at cpu.shares 1024 it woke up to 3.5–4.2 ms late
// at p99 and waited 386–456 ms per second on CPU (its run delay); at 4096,
// 116–141 ms; at 16384, 30–39 ms; at 102400, 4–11 ms, the run delay of the
// root cgroup's own tasks (issue 46's closing note has the probe;
// test/integration's TestDefaultParentOutweighsANeighbour checks it).
const DefaultParentWeight = 10000

// ParentDir resolves where the user wants slices created to an existing
// directory of this hierarchy. p is either a path on disk below the mount
// point (symbolic links resolved) or, when no such path exists, a cgroup path
// relative to the top of the mounted hierarchy ("user.slice/x", "/x").
//
// It never creates anything. A parent that is missing, is not a directory, or
// lies outside the cpu hierarchy (another mount, "..", a link that leads out)
// is refused: creating it would leave a directory behind that the user never
// asked for, and cleanup would later sweep a directory that is not ours.
func (hier Hierarchy) ParentDir(p string) (string, error) {
	fail := func(format string, a ...any) (string, error) {
		return "", &ParentError{Given: p, Reason: fmt.Sprintf(format, a...)}
	}
	if strings.TrimSpace(p) == "" {
		return fail("empty path; name a cgroup directory, such as %s", hier.DefaultParent())
	}
	// Compare resolved paths: the mount point may itself be reached through
	// a link (systemd's cpu -> cpu,cpuacct).
	mount := filepath.Clean(hier.MountPoint)
	if real, err := filepath.EvalSymlinks(mount); err == nil {
		mount = real
	}
	within := func(dir string) bool { return dir == mount || strings.HasPrefix(dir, mount+"/") }
	// Paths are given back below hier.MountPoint as found in mountinfo, so
	// that every path of this hierarchy shares one prefix.
	inHier := func(real string) string {
		return filepath.Join(hier.MountPoint, strings.TrimPrefix(real, mount))
	}

	var real string
	// "/" names the top of the hierarchy (the root cgroup), not the root
	// of the filesystem.
	if filepath.IsAbs(p) && filepath.Clean(p) != "/" {
		// A path on disk is followed as an output path is: no link another
		// user planted (/tmp/parent -> someone's cgroup) decides where root
		// makes slices. Past the mount point nothing can be a link
		// (cgroupfs refuses symlink(2), even to root), so the writes into
		// the slice, below the path resolved here, follow none.
		if err := atomicfile.CheckLinks(p); err != nil {
			return fail("%v", err)
		}
		r, err := filepath.EvalSymlinks(p)
		switch {
		case err == nil && !within(r):
			if strings.HasPrefix(r, filepath.Dir(mount)+"/") {
				return fail("%s is in another cgroup hierarchy, not the cpu hierarchy mounted at %s", r, hier.MountPoint)
			}
			return fail("%s is outside the cpu hierarchy mounted at %s", r, hier.MountPoint)
		case err == nil:
			real = r
		case !errors.Is(err, fs.ErrNotExist):
			return fail("%v", err)
		case within(filepath.Clean(p)) || strings.HasPrefix(filepath.Clean(p), filepath.Clean(hier.MountPoint)+"/"):
			return fail("%s does not exist; create it first (throttlebench creates only its own default parent %s)", filepath.Clean(p), hier.DefaultParent())
		case strings.HasPrefix(filepath.Clean(p), filepath.Dir(mount)+"/"):
			return fail("%s is in another cgroup hierarchy, not the cpu hierarchy mounted at %s", filepath.Clean(p), hier.MountPoint)
		case strings.HasPrefix(p, filepath.Dir(mount)+"/") || strings.HasPrefix(p, filepath.Dir(hier.MountPoint)+"/"):
			// Written as a path below the cgroup mounts, then climbing out.
			return fail("%s is outside the cpu hierarchy mounted at %s", filepath.Clean(p), hier.MountPoint)
		}
	}
	if real == "" {
		// A cgroup path, relative to the top of the visible hierarchy. Clean
		// it relative to that top so that a leading ".." survives and is seen.
		rel := path.Clean(strings.TrimLeft(p, "/"))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return fail("cgroup path %s climbs out of the cpu hierarchy mounted at %s", p, hier.MountPoint)
		}
		dir := filepath.Join(mount, rel)
		r, err := filepath.EvalSymlinks(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fail("cgroup %s does not exist (no directory %s); create it first (throttlebench creates only its own default parent %s)",
				path.Clean("/"+rel), inHier(dir), hier.DefaultParent())
		case err != nil:
			return fail("%v", err)
		case !within(r):
			return fail("%s leads to %s, outside the cpu hierarchy mounted at %s", inHier(dir), r, hier.MountPoint)
		}
		real = r
	}
	st, err := os.Stat(real)
	if err != nil {
		return fail("%v", err)
	}
	if !st.IsDir() {
		return fail("%s is a file, not a cgroup directory", inHier(real))
	}
	return inHier(real), nil
}

func (hier Hierarchy) contains(dir string) bool {
	return dir == hier.MountPoint || strings.HasPrefix(dir, hier.MountPoint+"/")
}
