//go:build linux

package cgroup

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/testenv"
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

// A read, a listing and a removal below the mount point go through, with
// os.ReadFile's, os.ReadDir's and os.Remove's answers; one whose path
// crosses a link (to outside, or to a directory of the mount itself) or
// leaves the mount is refused, and nothing outside is read or removed.
func TestCgroupfsReadsAndRemovesOnlyBeneathTheMount(t *testing.T) {
	c, outside := fakeCgroupfs(t)
	require.NoError(t, os.WriteFile(filepath.Join(c.mount, "p", "cgroup.procs"), []byte("7\n"), 0o644))
	data, err := c.readFile(filepath.Join(c.mount, "p", "cgroup.procs"))
	require.NoError(t, err)
	assert.Equal(t, "7\n", string(data))
	_, err = c.readFile(filepath.Join(c.mount, "p", "cpu.stat"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "a missing file is missing, as for os.ReadFile")
	assert.NotErrorIs(t, err, errNotCgroupfs)

	for _, d := range []string{"tb-b", "tb-a"} {
		require.NoError(t, os.Mkdir(filepath.Join(c.mount, "p", d), 0o755))
	}
	entries, err := c.readDir(filepath.Join(c.mount, "p"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"cgroup.procs", "tb-a", "tb-b"}, names, "sorted by name, as os.ReadDir")

	require.NoError(t, c.remove(filepath.Join(c.mount, "p", "tb-a")))
	assert.NoDirExists(t, filepath.Join(c.mount, "p", "tb-a"))
	err = c.remove(filepath.Join(c.mount, "p", "tb-a"))
	var pe *os.PathError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "remove", pe.Op)
	assert.Equal(t, filepath.Join(c.mount, "p", "tb-a"), pe.Path)
	assert.ErrorIs(t, err, fs.ErrNotExist, "gone already: os.Remove's answer")
	assert.ErrorIs(t, c.remove(filepath.Join(c.mount, "gone", "tb-a")), fs.ErrNotExist, "its parent gone too")
	require.NoError(t, os.WriteFile(filepath.Join(c.mount, "p", "tb-b", "f"), nil, 0o644))
	assert.ErrorIs(t, c.remove(filepath.Join(c.mount, "p", "tb-b")), unix.ENOTEMPTY)

	require.NoError(t, os.Mkdir(filepath.Join(outside, "tb-2"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(c.mount, "p", "tb-2"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(c.mount, "out")))
	require.NoError(t, os.Symlink(filepath.Join(c.mount, "p"), filepath.Join(c.mount, "in")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "cgroup.procs"), filepath.Join(c.mount, "p", "procs-link")))
	for _, p := range []string{
		filepath.Join(c.mount, "out", "cgroup.procs"),
		filepath.Join(c.mount, "in", "cgroup.procs"),
		filepath.Join(c.mount, "p", "procs-link"),
		filepath.Join(c.mount, "..", filepath.Base(outside), "cgroup.procs"),
		filepath.Join(outside, "cgroup.procs"),
	} {
		data, err := c.readFile(p)
		assert.ErrorIs(t, err, errNotCgroupfs, p)
		assert.Empty(t, data, p)
	}
	for _, p := range []string{filepath.Join(c.mount, "out"), filepath.Join(c.mount, "in"), outside} {
		_, err := c.readDir(p)
		assert.ErrorIs(t, err, errNotCgroupfs, p)
	}
	for _, p := range []string{
		filepath.Join(c.mount, "out", "tb-2"),
		filepath.Join(c.mount, "in", "tb-2"),
		filepath.Join(outside, "tb-2"),
		c.mount,
	} {
		assert.ErrorIs(t, c.remove(p), errNotCgroupfs, p)
	}
	// The link itself, named last: rmdir follows no link, and removes none.
	assert.ErrorIs(t, c.remove(filepath.Join(c.mount, "out")), unix.ENOTDIR)
	assert.DirExists(t, filepath.Join(outside, "tb-2"), "nothing removed outside")
	assert.DirExists(t, filepath.Join(c.mount, "p", "tb-2"), "nor through a link to the mount's own")
	assert.FileExists(t, filepath.Join(c.mount, "out"))
	assert.Equal(t, "untouched", read(t, filepath.Join(outside, "cgroup.procs")))

	// On this machine (no fixture's root) a directory tree is no cgroupfs.
	host := cgroupfs{mount: c.mount}
	_, err = host.readFile(filepath.Join(c.mount, "p", "cgroup.procs"))
	assert.ErrorIs(t, err, errNotCgroupfs)
	assert.ErrorIs(t, host.remove(filepath.Join(c.mount, "p", "tb-2")), errNotCgroupfs)
	assert.DirExists(t, filepath.Join(c.mount, "p", "tb-2"))
}

// The mount point that holds a directory: the deepest that it is, or lies
// below, compared as cleaned paths, not by prefix alone.
func TestMountOf(t *testing.T) {
	for _, tt := range []struct {
		dir    string
		mounts []string
		want   string
	}{
		{"/sys/fs/cgroup/cpu/throttlebench", []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct"}, "/sys/fs/cgroup/cpu"},
		{"/sys/fs/cgroup/cpuacct/throttlebench", []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct"}, "/sys/fs/cgroup/cpuacct"},
		{"/sys/fs/cgroup/cpu,cpuacct/x", []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}, "/sys/fs/cgroup/cpu,cpuacct"},
		{"/sys/fs/cgroup/cpu", []string{"", "/sys/fs/cgroup/cpu/"}, "/sys/fs/cgroup/cpu"},
		{"/sys/fs/cgroup/unified/x", []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}, "/sys/fs/cgroup/unified"},
		{"/sys/fs/cgroup/cpu/../../../tmp/x", []string{"/sys/fs/cgroup/cpu"}, ""},
		{"/sys/fs/cgroupx/cpu", []string{"/sys/fs/cgroup"}, ""},
		{"/tmp/x", []string{"", "/sys/fs/cgroup/cpu"}, ""},
		{"/anything", []string{"/"}, "/"},
		{"testdata/v2/sys/fs/cgroup/user.slice", []string{"testdata/v2/sys/fs/cgroup"}, "testdata/v2/sys/fs/cgroup"},
		{"/x", nil, ""},
	} {
		got, ok := mountOf(tt.dir, tt.mounts...)
		assert.Equal(t, tt.want, got, "%s in %q", tt.dir, tt.mounts)
		assert.Equal(t, tt.want != "", ok, "%s in %q", tt.dir, tt.mounts)
	}
}

// A slice's directories are read and removed beneath their own mount
// points: its twin beneath the cpuset hierarchy's, its cpuacct twin and
// the default parent's beneath cpuacct's (Acct); a directory in none of
// them beneath cpu's, which refuses it.
func TestCgroupfsAtPicksTheHierarchy(t *testing.T) {
	hier := Hierarchy{Version: 1, MountPoint: "/sys/fs/cgroup/cpu", Acct: "/sys/fs/cgroup/cpuacct", Root: "/nonexistent-root"}
	assert.Equal(t, cgroupfs{mount: "/sys/fs/cgroup/cpu", root: hier.Root}, hier.cgroupfsAt("/sys/fs/cgroup/cpu/throttlebench"))
	assert.Equal(t, cgroupfs{mount: "/sys/fs/cgroup/cpuacct", root: hier.Root}, hier.cgroupfsAt("/sys/fs/cgroup/cpuacct/throttlebench"))
	assert.Equal(t, hier.cgroupfs(), hier.cgroupfsAt("/tmp/planted/to-cgroup"), "no mountinfo below the root: the cpu hierarchy's, which refuses it")

	s := &Slice{Cgroup: Cgroup{Hierarchy: hier, Dir: "/sys/fs/cgroup/cpu/throttlebench/tb-1"},
		acct: "/sys/fs/cgroup/cpuacct/throttlebench/tb-1", twin: "/sys/fs/cgroup/cpuset/throttlebench/tb-1", twinMount: "/sys/fs/cgroup/cpuset"}
	assert.Equal(t, "/sys/fs/cgroup/cpu", s.cgroupfsOf(s.Dir).mount)
	assert.Equal(t, "/sys/fs/cgroup/cpuacct", s.cgroupfsOf(s.acct).mount)
	assert.Equal(t, "/sys/fs/cgroup/cpuset", s.cgroupfsOf(s.twin).mount)
}

// On this machine's cgroupfs, a --parent through links another user
// planted (as test/integration's TestParentThroughAPlantedLink plants
// them: a directory in /tmp owned by nobody, uid 65534, holding nobody's
// links to a real cgroup directory and to a directory that is no cgroup).
// Past ParentDir, whatever slipped by it: the stale slices under such a
// parent are neither listed nor removed, a slice there is not deleted,
// its files are not read, and KillIn reads no cgroup.procs there; both
// stale directories, in the cgroup and outside, stay.
func TestRemovalsAndReadsThroughAPlantedLink(t *testing.T) {
	testenv.NeedRoot(t, "to make a cgroup and to give a link to another user")
	const nobody = 65534
	hier, err := Host{Root: "/"}.CPUHierarchy(0)
	if err != nil {
		testenv.SkipOrFail(t, fmt.Sprintf("no cpu hierarchy: %v", err))
	}
	parent := filepath.Join(hier.MountPoint, fmt.Sprintf("tb-links-test-%d", os.Getpid()))
	require.NoError(t, os.Mkdir(parent, 0o755))
	t.Cleanup(func() { assert.NoError(t, os.Remove(parent)) })
	const staleName = "tb-999999999-1-deadbeef" // its owner is gone: stale
	stale := filepath.Join(parent, staleName)
	require.NoError(t, os.Mkdir(stale, 0o755))
	t.Cleanup(func() { os.Remove(stale) }) // before parent's
	plain := t.TempDir()
	plainStale := filepath.Join(plain, staleName)
	require.NoError(t, os.Mkdir(plainStale, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plain, "cpu.stat"), []byte("nr_periods 7\nnr_throttled 7\nthrottled_time 7\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(plain, "cpu.cfs_quota_us"), []byte("7000\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(plain, "cgroup.procs"), nil, 0o644))

	planted, err := os.MkdirTemp("/tmp", "tb-planted-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(planted) })
	require.NoError(t, os.Chown(planted, nobody, nobody))
	link := func(name, target string) string {
		l := filepath.Join(planted, name)
		require.NoError(t, os.Symlink(target, l))
		require.NoError(t, os.Lchown(l, nobody, nobody))
		return l
	}
	toCgroup, toPlain := link("to-cgroup", parent), link("to-plain", plain)

	// The cgroup itself, by its own path, reads and is read as ever.
	real := Cgroup{Hierarchy: hier, Dir: parent}
	_, err = real.Limits()
	require.NoError(t, err)
	pids, err := procs(hier.cgroupfs(), parent)
	require.NoError(t, err)
	assert.Empty(t, pids)

	for _, p := range []string{toCgroup, toPlain} {
		removed, skipped, err := hier.CleanStale(p)
		assert.ErrorIs(t, err, errNotCgroupfs, "CleanStale %s", p)
		assert.Empty(t, removed, p)
		assert.Empty(t, skipped, p)

		s := &Slice{Cgroup: Cgroup{Hierarchy: hier, Dir: filepath.Join(p, staleName)}}
		assert.ErrorIs(t, s.Delete(), errNotCgroupfs, "Delete %s", s.Dir)
		assert.ErrorIs(t, rmdirEmpty(hier.cgroupfs(), s.Dir), errNotCgroupfs, "rmdir %s", s.Dir)

		cg := Cgroup{Hierarchy: hier, Dir: p}
		_, err = cg.Stat()
		assert.ErrorIs(t, err, errNotCgroupfs, "cpu.stat in %s", p)
		_, err = cg.Limits()
		assert.ErrorIs(t, err, errNotCgroupfs, "the limits in %s", p)
		_, err = Host{Root: "/"}.KillIn(p, 0)
		assert.ErrorIs(t, err, errNotCgroupfs, "KillIn %s", p)
	}
	assert.DirExists(t, stale, "nothing removed in the cgroup the link leads to")
	assert.DirExists(t, plainStale, "nothing removed outside cgroupfs")
	assert.Equal(t, "nr_periods 7\nnr_throttled 7\nthrottled_time 7\n", read(t, filepath.Join(plain, "cpu.stat")))
}
