//go:build linux

package cgroup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// fixtureRoot makes dir a fixture's root, as a test's Host.Root is one:
// below it a directory tree stands in for cgroupfs (cgroupfs.fixtureMagic),
// and its proc is this machine's (a link to /proc), where the slices'
// names and owners are read.
func fixtureRoot(t *testing.T, dir string) string {
	t.Helper()
	require.NoError(t, os.Symlink("/proc", filepath.Join(dir, "proc")))
	return dir
}

// fakeCgroupfs is a fixture's mount point, with a directory p in it, and,
// beside the fixture, a directory outside it, which no write may reach.
func fakeCgroupfs(t *testing.T) (c cgroupfs, outside string) {
	t.Helper()
	root := fixtureRoot(t, t.TempDir())
	c = cgroupfs{mount: filepath.Join(root, "cg"), root: root}
	require.NoError(t, os.MkdirAll(filepath.Join(c.mount, "p"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(c.mount, "p", "cgroup.procs"), nil, 0o644))
	outside = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "cgroup.procs"), []byte("untouched"), 0o644))
	return c, outside
}

// A write or a mkdir below the mount point goes through; one whose path
// crosses a link (to outside, or even to a directory of the mount itself:
// cgroupfs holds none) or leaves the mount is refused, and nothing is
// written or made outside. Both ways: openat2, and the walk that stands in
// for it on kernels without it.
func TestCgroupfsWritesOnlyBeneathTheMount(t *testing.T) {
	c, outside := fakeCgroupfs(t)
	require.NoError(t, c.writeFile(filepath.Join(c.mount, "p", "cgroup.procs"), []byte("42")))
	assert.Equal(t, "42", read(t, filepath.Join(c.mount, "p", "cgroup.procs")))
	require.NoError(t, c.mkdir(filepath.Join(c.mount, "p", "tb-1"), 0o755))
	assert.DirExists(t, filepath.Join(c.mount, "p", "tb-1"))
	require.NoError(t, c.mkdir(filepath.Join(c.mount, "top"), 0o755), "in the mount point itself")

	require.NoError(t, os.Symlink(outside, filepath.Join(c.mount, "out")))
	require.NoError(t, os.Symlink(filepath.Join(c.mount, "p"), filepath.Join(c.mount, "in")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "cgroup.procs"), filepath.Join(c.mount, "p", "procs-link")))
	for _, p := range []string{
		filepath.Join(c.mount, "out", "cgroup.procs"),
		filepath.Join(c.mount, "in", "cgroup.procs"),
		filepath.Join(c.mount, "p", "procs-link"),
		filepath.Join(c.mount, "..", filepath.Base(outside), "cgroup.procs"),
		filepath.Join(outside, "cgroup.procs"),
		"cg/p/cgroup.procs",
	} {
		err := c.writeFile(p, []byte("666"))
		assert.ErrorIs(t, err, errNotCgroupfs, p)
	}
	for _, p := range []string{
		filepath.Join(c.mount, "out", "tb-2"),
		filepath.Join(c.mount, "in", "tb-2"),
		filepath.Join(outside, "tb-2"),
		c.mount,
	} {
		err := c.mkdir(p, 0o755)
		assert.ErrorIs(t, err, errNotCgroupfs, p)
	}
	assert.Equal(t, "untouched", read(t, filepath.Join(outside, "cgroup.procs")))
	assert.NoDirExists(t, filepath.Join(outside, "tb-2"))
	assert.NoDirExists(t, filepath.Join(c.mount, "p", "tb-2"))

	// The walk, as on a kernel without openat2.
	fixture, err := c.fixtureMagic()
	require.NoError(t, err)
	mfd, err := unix.Open(c.mount, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(mfd)
	fd, err := walkBeneath(mfd, "p/cgroup.procs", unix.O_WRONLY|unix.O_CLOEXEC, 0, fixture)
	require.NoError(t, err)
	unix.Close(fd)
	fd, err = walkBeneath(mfd, "p", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0, fixture)
	require.NoError(t, err)
	unix.Close(fd)
	for _, rel := range []string{"out/cgroup.procs", "in/cgroup.procs", "p/procs-link"} {
		_, err := walkBeneath(mfd, rel, unix.O_WRONLY|unix.O_TRUNC|unix.O_CLOEXEC, 0, fixture)
		assert.ErrorIs(t, err, unix.ELOOP, rel)
	}
	for _, rel := range []string{"out", "in"} {
		_, err := walkBeneath(mfd, rel, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0, fixture)
		assert.ErrorIs(t, err, unix.ELOOP, rel)
	}
	_, err = walkBeneath(mfd, "p/cgroup.procs", unix.O_WRONLY|unix.O_CLOEXEC, 0, 0)
	assert.ErrorIs(t, err, errNotCgroupfs, "without the fixture's stand-in, a temporary directory is no cgroupfs")
	assert.Equal(t, "untouched", read(t, filepath.Join(outside, "cgroup.procs")))
}

// On this machine (a root of "" or "/") only a cgroup filesystem counts:
// a directory tree elsewhere is refused before anything is written; a
// fixture's stand-in counts only below the fixture's root.
func TestCgroupfsChecksTheMagic(t *testing.T) {
	c, _ := fakeCgroupfs(t)
	for _, root := range []string{"", "/", filepath.Join(c.root, "elsewhere")} {
		host := cgroupfs{mount: c.mount, root: root}
		err := host.writeFile(filepath.Join(c.mount, "p", "cgroup.procs"), []byte("42"))
		assert.ErrorIs(t, err, errNotCgroupfs, "root %q", root)
		err = host.mkdir(filepath.Join(c.mount, "p", "tb-1"), 0o755)
		assert.ErrorIs(t, err, errNotCgroupfs, "root %q", root)
	}
	assert.Empty(t, read(t, filepath.Join(c.mount, "p", "cgroup.procs")))
	assert.NoDirExists(t, filepath.Join(c.mount, "p", "tb-1"))

	// This machine's own cpu hierarchy is one (read only: nothing is written).
	hier, err := Host{Root: "/"}.CPUHierarchy(0)
	if err != nil {
		t.Skipf("no cgroup hierarchy here: %v", err)
	}
	fd, err := unix.Open(hier.MountPoint, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	assert.NoError(t, onCgroupfs(fd, 0), hier.MountPoint)
	procs, err := walkBeneath(fd, "cgroup.procs", unix.O_RDONLY|unix.O_CLOEXEC, 0, 0)
	require.NoError(t, err, "the walk finds cgroupfs where openat2 would")
	unix.Close(procs)
}

// A parent swapped for a link after ParentDir resolved it: the slice is
// not made through it, the refusal is the parent's (exit 2), and nothing is
// made where the link leads.
func TestCreateSliceRefusesAParentSwappedForALink(t *testing.T) {
	hier := fakeV1Hier(t, false)
	parent := filepath.Join(hier.MountPoint, "mine")
	require.NoError(t, os.Mkdir(parent, 0o755))
	resolved, err := hier.ParentDir(parent)
	require.NoError(t, err)
	outside := t.TempDir()
	require.NoError(t, os.Remove(parent))
	require.NoError(t, os.Symlink(outside, parent))

	_, err = hier.CreateSlice(SliceSpec{Parent: resolved, Limits: limits20of100})
	var pe *ParentError
	require.ErrorAs(t, err, &pe)
	assert.ErrorContains(t, err, "crosses a link")
	assert.Empty(t, dirs(t, outside), "nothing made where the link leads")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries)
}
