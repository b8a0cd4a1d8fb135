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

func TestNewV2EnablesCPUInEveryAncestorBelowTheMount(t *testing.T) {
	mp := fakeMount(t, "a/b/tb-1")
	hier := Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/"}

	dir := filepath.Join(mp, "a/b/tb-1")
	require.NoError(t, hier.newV2("/a/b/tb-1", 50*time.Millisecond, 100*time.Millisecond))
	for _, a := range []string{"", "a", "a/b"} {
		assert.Equal(t, "+cpu", read(t, filepath.Join(mp, a, "cgroup.subtree_control")), "ancestor %q", a)
	}
	assert.NoFileExists(t, filepath.Join(dir, "cgroup.subtree_control"), "the slice's own children get nothing")
	assert.NoFileExists(t, filepath.Join(filepath.Dir(mp), "cgroup.subtree_control"), "nothing above the mount")
	assert.Equal(t, "50000 100000", read(t, filepath.Join(dir, "cpu.max")))

	require.NoError(t, hier.newV2("/a/b/tb-1", Unlimited, 10*time.Millisecond))
	assert.Equal(t, "max 10000", read(t, filepath.Join(dir, "cpu.max")))
}

// In a subtree delegated to a user, the ancestors above it cannot be written
// (they have +cpu already): only the nearest ancestor's failure is an error.
func TestNewV2OnlyTheParentMustTakeCPU(t *testing.T) {
	mp := fakeMount(t, "user/tb-1", "cgroup.subtree_control")
	hier := Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/"}
	err := hier.newV2("/user/tb-1", 50*time.Millisecond, 100*time.Millisecond)
	require.NoError(t, err, "the mount's own file cannot be written (here: a directory)")
	assert.Equal(t, "+cpu", read(t, filepath.Join(mp, "user", "cgroup.subtree_control")))

	mp = fakeMount(t, "user/tb-1", "user/cgroup.subtree_control")
	hier = Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/"}
	err = hier.newV2("/user/tb-1", 50*time.Millisecond, 100*time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "enable +cpu in "+filepath.Join(mp, "user"))
	assert.NoFileExists(t, filepath.Join(mp, "user/tb-1/cpu.max"), "no limit written without the controller")
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
