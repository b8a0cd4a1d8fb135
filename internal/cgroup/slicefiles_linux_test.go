//go:build linux

package cgroup

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The files a slice's set-up writes, checked on a directory tree that stands
// in for a cgroup mount (plain files take any value, so these tests pin down
// what is written where; the integration tests check that the kernel takes it).

// fakeMount makes <tmp>/cg with the slice directory dirs below it and returns
// the mount point.
func fakeMount(t *testing.T, dirs ...string) string {
	t.Helper()
	mp := filepath.Join(t.TempDir(), "cg")
	for _, d := range append(dirs, "") {
		require.NoError(t, os.MkdirAll(filepath.Join(mp, d), 0o755))
	}
	return mp
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

func TestNewV1WritesPeriodAndQuota(t *testing.T) {
	mp := fakeMount(t, "throttlebench/tb-1")
	hier := Hierarchy{Version: 1, MountPoint: mp, MountRoot: "/"}

	dir := filepath.Join(mp, "throttlebench/tb-1")
	require.NoError(t, hier.newV1("/throttlebench/tb-1", 20*time.Millisecond, 100*time.Millisecond))
	assert.Equal(t, "100000", read(t, filepath.Join(dir, "cpu.cfs_period_us")))
	assert.Equal(t, "20000", read(t, filepath.Join(dir, "cpu.cfs_quota_us")))

	require.NoError(t, hier.newV1("/throttlebench/tb-1", Unlimited, 10*time.Millisecond))
	assert.Equal(t, "10000", read(t, filepath.Join(dir, "cpu.cfs_period_us")))
	assert.Equal(t, "-1", read(t, filepath.Join(dir, "cpu.cfs_quota_us")), "no quota is -1 in v1")
}

// In its own default parent throttlebench enables +cpu in the mount point,
// then in the default parent; nothing below or above.
func TestNewV2EnablesCPUInTheDefaultParentsChain(t *testing.T) {
	mp := fakeMount(t, "throttlebench/tb-1")
	hier := Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/"}

	dir := filepath.Join(mp, "throttlebench/tb-1")
	require.NoError(t, hier.newV2("/throttlebench/tb-1", 50*time.Millisecond, 100*time.Millisecond, true))
	for _, a := range []string{"", "throttlebench"} {
		assert.Equal(t, "+cpu", read(t, filepath.Join(mp, a, "cgroup.subtree_control")), "ancestor %q", a)
	}
	assert.NoFileExists(t, filepath.Join(dir, "cgroup.subtree_control"), "the slice's own children get nothing")
	assert.NoFileExists(t, filepath.Join(filepath.Dir(mp), "cgroup.subtree_control"), "nothing above the mount")
	assert.Equal(t, "50000 100000", read(t, filepath.Join(dir, "cpu.max")))

	require.NoError(t, hier.newV2("/throttlebench/tb-1", Unlimited, 10*time.Millisecond, true))
	assert.Equal(t, "max 10000", read(t, filepath.Join(dir, "cpu.max")))
}

// A parent the user named is not written: not it, not its ancestors.
func TestNewV2LeavesANamedParentAlone(t *testing.T) {
	mp := fakeMount(t, "a/b/tb-1")
	hier := Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/"}
	require.NoError(t, hier.newV2("/a/b/tb-1", 50*time.Millisecond, 100*time.Millisecond, false))
	for _, a := range []string{"", "a", "a/b"} {
		assert.NoFileExists(t, filepath.Join(mp, a, "cgroup.subtree_control"), "ancestor %q", a)
	}
	assert.Equal(t, "50000 100000", read(t, filepath.Join(mp, "a/b/tb-1", "cpu.max")))
}

// Where the mount point's file refuses the write (a cgroup namespace, a
// container), only the default parent's own failure is an error.
func TestNewV2OnlyTheParentMustTakeCPU(t *testing.T) {
	mp := fakeMount(t, "throttlebench/tb-1", "cgroup.subtree_control")
	hier := Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/"}
	err := hier.newV2("/throttlebench/tb-1", 50*time.Millisecond, 100*time.Millisecond, true)
	require.NoError(t, err, "the mount's own file cannot be written (here: a directory)")
	assert.Equal(t, "+cpu", read(t, filepath.Join(mp, "throttlebench", "cgroup.subtree_control")))

	mp = fakeMount(t, "throttlebench/tb-1", "throttlebench/cgroup.subtree_control")
	hier = Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/"}
	err = hier.newV2("/throttlebench/tb-1", 50*time.Millisecond, 100*time.Millisecond, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "enable +cpu in "+filepath.Join(mp, "throttlebench"))
	assert.NoFileExists(t, filepath.Join(mp, "throttlebench/tb-1/cpu.max"), "no limit written without the controller")
}

// A v2 parent the user named must enable +cpu for its children already: it
// is checked, read only, before anything is made, and refused (exit 2)
// when it does not.
func TestCreateSliceV2NamedParentNeedsCPU(t *testing.T) {
	mp := fakeMount(t, "user")
	hier := Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/"}
	user := filepath.Join(mp, "user")
	ctl := filepath.Join(user, "cgroup.subtree_control")
	require.NoError(t, os.WriteFile(ctl, []byte("memory\n"), 0o644))
	spec := SliceSpec{Parent: user, Limits: Limits{Period: 100 * time.Millisecond, Quota: 50 * time.Millisecond}}
	_, err := hier.CreateSlice(spec)
	var pe *ParentError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "echo +cpu > "+ctl)
	assert.Empty(t, dirs(t, user), "nothing created")
	assert.Equal(t, "memory\n", read(t, ctl), "the user's parent is not changed")
	assert.NoFileExists(t, filepath.Join(mp, "cgroup.subtree_control"), "nor its ancestors")

	require.NoError(t, os.WriteFile(ctl, []byte("cpu memory\n"), 0o644))
	s, err := hier.CreateSlice(spec)
	require.NoError(t, err)
	assert.Equal(t, "50000 100000", read(t, filepath.Join(s.Dir, "cpu.max")))
	assert.Equal(t, "cpu memory\n", read(t, ctl), "still not changed")
	assert.NoFileExists(t, filepath.Join(mp, "cgroup.subtree_control"))
}

func TestAddProcWritesThePID(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cgroup.procs"), nil, 0o644))
	s := &Slice{Cgroup: Cgroup{Dir: dir}}
	require.NoError(t, s.AddProc(4242))
	assert.Equal(t, "4242", read(t, filepath.Join(dir, "cgroup.procs")))
	assert.Error(t, s.AddProc(0))

	gone := &Slice{Cgroup: Cgroup{Dir: filepath.Join(dir, "gone")}}
	assert.Error(t, gone.AddProc(4242), "a missing cgroup.procs is not created")
}

func TestDeleteRemovesTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tb-1")
	require.NoError(t, os.Mkdir(dir, 0o755))
	s := &Slice{Cgroup: Cgroup{Dir: dir}}
	require.NoError(t, s.Delete())
	assert.NoDirExists(t, dir)
	assert.NoError(t, s.Delete(), "deleting twice is no error")
}
