//go:build linux

package cgroup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cpuset files a slice's set-up writes, on directory trees that stand
// in for the cgroup mounts (as slicefiles_linux_test.go does for the
// limits; the integration tests check that the kernel takes them).

var cpusetLimits = Limits{Period: 100 * time.Millisecond, Quota: Unlimited}

// fakeV1 makes the cpu and cpuset mounts of a v1 host whose cpuset top has
// CPUs 0-3 and memory node 0.
func fakeV1(t *testing.T) (cpu, cpuset Hierarchy) {
	t.Helper()
	base := fixtureRoot(t, t.TempDir())
	cpu = Hierarchy{Version: 1, MountPoint: filepath.Join(base, "cpu"), MountRoot: "/", Root: base}
	cpuset = Hierarchy{Version: 1, MountPoint: filepath.Join(base, "cpuset"), MountRoot: "/", Root: base}
	require.NoError(t, os.MkdirAll(cpu.MountPoint, 0o755))
	require.NoError(t, os.MkdirAll(cpuset.MountPoint, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cpuset.MountPoint, "cpuset.cpus"), []byte("0-3\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(cpuset.MountPoint, "cpuset.mems"), []byte("0\n"), 0o644))
	return cpu, cpuset
}

// v1, the default parent: its twin is made and given the top's CPUs and
// nodes; the slice's twin, of the same name, the parent's nodes and then
// the CPUs asked.
func TestCreateSliceV1CpusetTwin(t *testing.T) {
	cpu, cpuset := fakeV1(t)
	parent := cpu.DefaultParent()
	twinParent := cpu.TwinDir(cpuset, parent)
	s, err := cpu.CreateSlice(SliceSpec{Parent: parent, CreateParent: true, Limits: cpusetLimits,
		Cpuset: &CpusetSpec{Hier: cpuset, Parent: twinParent, CPUs: []int{1, 2, 3}}})
	require.NoError(t, err)

	name := filepath.Base(s.Dir)
	assert.Equal(t, filepath.Join(cpuset.MountPoint, "throttlebench", name), s.twin)
	assert.Equal(t, "0-3\n", read(t, filepath.Join(twinParent, "cpuset.cpus")))
	assert.Equal(t, "0\n", read(t, filepath.Join(twinParent, "cpuset.mems")))
	assert.Equal(t, "0\n", read(t, filepath.Join(s.twin, "cpuset.mems")))
	assert.Equal(t, "1-3", read(t, filepath.Join(s.twin, "cpuset.cpus")))
	assert.NoFileExists(t, filepath.Join(s.Dir, "cpuset.cpus"), "nothing of the cpuset in the cpu hierarchy")
	got, err := s.Cpuset()
	require.NoError(t, err)
	assert.Equal(t, "1-3", got, "read back (cpuset.cpus where the fake has no cpuset.effective_cpus)")

	// The process goes into the twin first (its affinity), then the slice.
	for _, d := range []string{s.twin, s.Dir} {
		require.NoError(t, os.WriteFile(filepath.Join(d, "cgroup.procs"), nil, 0o644))
	}
	require.NoError(t, s.AddProc(4242))
	assert.Equal(t, "4242", read(t, filepath.Join(s.twin, "cgroup.procs")))
	assert.Equal(t, "4242", read(t, filepath.Join(s.Dir, "cgroup.procs")))
	require.NoError(t, os.Remove(filepath.Join(s.twin, "cgroup.procs")))
	require.NoError(t, os.Mkdir(filepath.Join(s.twin, "cgroup.procs"), 0o755))
	assert.Error(t, s.AddProc(4243), "a twin that cannot take it stops the move")
	assert.Equal(t, "4242", read(t, filepath.Join(s.Dir, "cgroup.procs")), "and the slice gets nothing")
}

// A twin parent left by a run that died before filling it gets the CPUs
// and nodes; one that has them keeps its own.
func TestDefaultTwinParentInherits(t *testing.T) {
	cpu, cpuset := fakeV1(t)
	dir := filepath.Join(cpuset.MountPoint, "throttlebench")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cpuset.cpus"), []byte("2\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cpuset.mems"), []byte("\n"), 0o644))
	_, err := cpu.CreateSlice(SliceSpec{Parent: cpu.DefaultParent(), CreateParent: true, Limits: cpusetLimits,
		Cpuset: &CpusetSpec{Hier: cpuset, Parent: dir, CPUs: []int{2}}})
	require.NoError(t, err)
	assert.Equal(t, "2\n", read(t, filepath.Join(dir, "cpuset.cpus")))
	assert.Equal(t, "0\n", read(t, filepath.Join(dir, "cpuset.mems")))
}

// A parent the user named is checked before anything is made: on v1 it must
// have its twin, with memory nodes and CPUs.
func TestCreateSliceV1NamedParentNeedsItsTwin(t *testing.T) {
	cpu, cpuset := fakeV1(t)
	parent := filepath.Join(cpu.MountPoint, "mine")
	require.NoError(t, os.Mkdir(parent, 0o755))
	spec := SliceSpec{Parent: parent, Limits: cpusetLimits,
		Cpuset: &CpusetSpec{Hier: cpuset, Parent: cpu.TwinDir(cpuset, parent), CPUs: []int{1}}}
	_, err := cpu.CreateSlice(spec)
	var pe *ParentError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "needs the parent's twin "+filepath.Join(cpuset.MountPoint, "mine"))
	assert.Empty(t, dirs(t, parent), "nothing created")
	assert.NoDirExists(t, filepath.Join(cpuset.MountPoint, "mine"), "the user's twin is never made")

	twin := filepath.Join(cpuset.MountPoint, "mine")
	require.NoError(t, os.Mkdir(twin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(twin, "cpuset.mems"), []byte("\n"), 0o644))
	_, err = cpu.CreateSlice(spec)
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "cpuset.mems is empty")

	require.NoError(t, os.WriteFile(filepath.Join(twin, "cpuset.mems"), []byte("0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(twin, "cpuset.cpus"), []byte("\n"), 0o644))
	_, err = cpu.CreateSlice(spec)
	require.ErrorAs(t, err, &pe, "a twin without CPUs can give its children none")
	assert.Contains(t, err.Error(), "cpuset.cpus is empty")
	assert.Empty(t, dirs(t, parent), "nothing created")
	assert.Empty(t, dirs(t, twin), "nothing created")

	require.NoError(t, os.WriteFile(filepath.Join(twin, "cpuset.cpus"), []byte("0-3\n"), 0o644))
	s, err := cpu.CreateSlice(spec)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(twin, filepath.Base(s.Dir)), s.twin)
	assert.Equal(t, "1", read(t, filepath.Join(s.twin, "cpuset.cpus")))
	assert.Equal(t, "0-3\n", read(t, filepath.Join(twin, "cpuset.cpus")), "the user's twin is not written")
	assert.Equal(t, "0\n", read(t, filepath.Join(twin, "cpuset.mems")), "the user's twin is not written")
}

// Where v1 mounts cpu and cpuset together (no layout we know of does), the
// library's cpuset controller cannot find the top of the hierarchy:
// refused before anything is made.
func TestCreateSliceV1CoMounted(t *testing.T) {
	mp := t.TempDir()
	both := Hierarchy{Version: 1, MountPoint: mp, MountRoot: "/"}
	require.NoError(t, os.WriteFile(filepath.Join(mp, "cpuset.cpus"), []byte("0-1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(mp, "cpuset.mems"), []byte("0\n"), 0o644))
	_, err := both.CreateSlice(SliceSpec{Parent: both.DefaultParent(), CreateParent: true, Limits: cpusetLimits,
		Cpuset: &CpusetSpec{Hier: both, Parent: both.DefaultParent(), CPUs: []int{0}}})
	var pe *ParentError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "mounted alone, at a directory named cpuset")
	assert.Empty(t, dirs(t, mp), "nothing created")
}

// v2: the default parent enables the controller for its children (once the
// top enables it for the default parent), then the slice takes its CPUs; a
// parent the user named must have it enabled.
func TestCreateSliceV2Cpuset(t *testing.T) {
	mp := fakeMount(t)
	v2 := Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/", Root: filepath.Dir(mp)}
	def := SliceSpec{Parent: v2.DefaultParent(), CreateParent: true, Limits: cpusetLimits,
		Cpuset: &CpusetSpec{Hier: v2, Parent: v2.DefaultParent(), CPUs: []int{0, 2, 3}}}
	// The top does not enable cpuset: the default parent could not, so
	// nothing is made (not the default parent either), and the top is not
	// changed.
	top := filepath.Join(mp, "cgroup.subtree_control")
	require.NoError(t, os.WriteFile(top, []byte("cpu memory\n"), 0o644))
	_, err := v2.CreateSlice(def)
	var pe *ParentError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "echo +cpuset > "+top)
	assert.Empty(t, dirs(t, mp), "nothing created")
	assert.Equal(t, "cpu memory\n", read(t, top))

	require.NoError(t, os.WriteFile(top, []byte("cpuset cpu memory\n"), 0o644))
	fakeOwnParent(t, v2)
	s, err := v2.CreateSlice(def)
	require.NoError(t, err)
	assert.Empty(t, s.twin)
	assert.Equal(t, "+cpu +cpuset", read(t, filepath.Join(v2.DefaultParent(), "cgroup.subtree_control")))
	assert.Equal(t, "cpuset cpu memory\n", read(t, top), "the top is not written")
	assert.Equal(t, "0,2-3", read(t, filepath.Join(s.Dir, "cpuset.cpus")))
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "cpuset.cpus.effective"), []byte("0,2-3\n"), 0o644))
	got, err := s.Cpuset()
	require.NoError(t, err)
	assert.Equal(t, "0,2-3", got)

	user := filepath.Join(mp, "user")
	require.NoError(t, os.Mkdir(user, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(user, "cgroup.subtree_control"), []byte("cpu memory\n"), 0o644))
	spec := SliceSpec{Parent: user, Limits: cpusetLimits, Cpuset: &CpusetSpec{Hier: v2, Parent: user, CPUs: []int{1}}}
	_, err = v2.CreateSlice(spec)
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "echo +cpuset > "+filepath.Join(user, "cgroup.subtree_control"))
	assert.Empty(t, dirs(t, user), "nothing created")
	assert.Equal(t, "cpu memory\n", read(t, filepath.Join(user, "cgroup.subtree_control")), "the user's parent is not changed")

	require.NoError(t, os.WriteFile(filepath.Join(user, "cgroup.subtree_control"), []byte("cpuset cpu\n"), 0o644))
	s, err = v2.CreateSlice(spec)
	require.NoError(t, err)
	assert.Equal(t, "1", read(t, filepath.Join(s.Dir, "cpuset.cpus")))
}

// A cpuset that cannot be set up leaves no twin behind, and is no
// combination of limits. (Here the twin parent's cpuset.mems is a
// directory, which cannot be read.)
func TestCreateSliceCpusetFailureLeavesNothing(t *testing.T) {
	cpu, cpuset := fakeV1(t)
	parent := filepath.Join(cpu.MountPoint, "p")
	twinParent := cpu.TwinDir(cpuset, parent)
	require.NoError(t, os.MkdirAll(parent, 0o755))
	require.NoError(t, os.MkdirAll(twinParent, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(twinParent, "cpuset.mems"), []byte("0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(twinParent, "cpuset.cpus"), []byte("0-3\n"), 0o644))
	_, err := cpu.CreateSlice(SliceSpec{Parent: parent, Limits: cpusetLimits,
		Cpuset: &CpusetSpec{Hier: cpuset, Parent: twinParent, CPUs: []int{1}}})
	require.NoError(t, err)
	for _, d := range append(dirs(t, parent), dirs(t, twinParent)...) {
		require.NoError(t, os.RemoveAll(d))
	}

	// No memory nodes to copy: the twin cannot be set up.
	require.NoError(t, os.Remove(filepath.Join(twinParent, "cpuset.mems")))
	require.NoError(t, os.Mkdir(filepath.Join(twinParent, "cpuset.mems"), 0o755))
	_, err = cpu.CreateSlice(SliceSpec{Parent: parent, Limits: cpusetLimits,
		Cpuset: &CpusetSpec{Hier: cpuset, Parent: twinParent, CPUs: []int{1}}})
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrLimitsRefused, "a cpuset is no combination of limits for a sweep to skip")
	// (The slice's own removal is the limits' path; on this fake its limit
	// files keep the directory from going, as they do not on cgroupfs.)
	assert.Equal(t, []string{filepath.Join(twinParent, "cpuset.mems")}, dirs(t, twinParent))
}

// Delete removes the twin with the slice; a twin gone already is no error.
func TestDeleteRemovesTheTwin(t *testing.T) {
	cpu, cpuset := fakeV1(t)
	s := &Slice{Cgroup: Cgroup{Hierarchy: cpu, Dir: filepath.Join(cpu.MountPoint, "tb-1")},
		twin: filepath.Join(cpuset.MountPoint, "tb-1"), twinMount: cpuset.MountPoint}
	require.NoError(t, os.MkdirAll(s.Dir, 0o755))
	require.NoError(t, os.MkdirAll(s.twin, 0o755))
	require.NoError(t, s.Delete())
	assert.NoDirExists(t, s.Dir)
	assert.NoDirExists(t, s.twin)
	assert.NoError(t, s.Delete())

	// The slice cannot go (a file stands for a process's state): the twin
	// still goes, and the error names the slice.
	require.NoError(t, os.MkdirAll(filepath.Join(s.Dir, "child"), 0o755))
	require.NoError(t, os.MkdirAll(s.twin, 0o755))
	err := s.Delete()
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), s.Dir), err.Error())
	assert.NoDirExists(t, s.twin)
}

// Stale twins are found and removed like stale slices: by name, owner
// gone, empty; anything else in the cpuset hierarchy is left alone.
func TestCleanStaleTwins(t *testing.T) {
	_, cpuset := fakeV1(t)
	twinParent := cpuset.DefaultParent()
	stale := filepath.Join(twinParent, "tb-999999-1-deadbeef")
	other := filepath.Join(twinParent, "not-ours")
	live, err := newSliceName("")
	require.NoError(t, err)
	for _, d := range []string{stale, other, filepath.Join(twinParent, live)} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	removed, skipped, err := cpuset.CleanStale(twinParent)
	require.NoError(t, err)
	assert.Equal(t, []string{stale}, removed)
	assert.Empty(t, skipped)
	assert.DirExists(t, other)
	assert.DirExists(t, filepath.Join(twinParent, live), "its owner (this test) lives")
}

// dirs are the directories in dir.
func dirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
