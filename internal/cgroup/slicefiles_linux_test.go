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
// the mount point; <tmp> is a fixture's root (fixtureRoot), the Root of its
// hierarchy.
func fakeMount(t *testing.T, dirs ...string) string {
	t.Helper()
	mp := filepath.Join(fixtureRoot(t, t.TempDir()), "cg")
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

var limits20of100 = Limits{Period: 100 * time.Millisecond, Quota: 20 * time.Millisecond}

// fakeV1Hier makes a v1 cpu mount (and, when acct, a cpuacct mount beside
// it) in a fresh directory.
func fakeV1Hier(t *testing.T, acct bool) Hierarchy {
	t.Helper()
	base := fixtureRoot(t, t.TempDir())
	hier := Hierarchy{Version: 1, MountPoint: filepath.Join(base, "cpu"), MountRoot: "/", Root: base}
	require.NoError(t, os.Mkdir(hier.MountPoint, 0o755))
	if acct {
		hier.Acct = filepath.Join(base, "cpuacct")
		require.NoError(t, os.Mkdir(hier.Acct, 0o755))
	}
	return hier
}

// v1: the library writes the period, then the quota; -1 is no quota.
func TestCreateSliceV1WritesPeriodAndQuota(t *testing.T) {
	hier := fakeV1Hier(t, false)
	s, err := hier.CreateSlice(SliceSpec{Parent: hier.DefaultParent(), CreateParent: true, Limits: limits20of100})
	require.NoError(t, err)
	assert.Equal(t, "100000", read(t, filepath.Join(s.Dir, "cpu.cfs_period_us")))
	assert.Equal(t, "20000", read(t, filepath.Join(s.Dir, "cpu.cfs_quota_us")))
	assert.NoFileExists(t, filepath.Join(s.Dir, "cpu.cfs_burst_us"), "no burst asked, none written")
	assert.Equal(t, "102400", read(t, filepath.Join(hier.DefaultParent(), "cpu.shares")), "the default parent's weight, 10000 on v2's scale")
	assert.NoFileExists(t, filepath.Join(s.Dir, "cpu.shares"), "the slice's own weight is the kernel's default")

	s, err = hier.CreateSlice(SliceSpec{Parent: hier.DefaultParent(), CreateParent: true,
		Limits: Limits{Period: 10 * time.Millisecond, Quota: Unlimited, Burst: 0}})
	require.NoError(t, err)
	assert.Equal(t, "10000", read(t, filepath.Join(s.Dir, "cpu.cfs_period_us")))
	assert.Equal(t, "-1", read(t, filepath.Join(s.Dir, "cpu.cfs_quota_us")), "no quota is -1 in v1")

	s, err = hier.CreateSlice(SliceSpec{Parent: hier.DefaultParent(), CreateParent: true,
		Limits: Limits{Period: 100 * time.Millisecond, Quota: 20 * time.Millisecond, Burst: 5 * time.Millisecond}})
	require.NoError(t, err)
	assert.Equal(t, "5000", read(t, filepath.Join(s.Dir, "cpu.cfs_burst_us")), "burst, beside the library")
}

// v1 with cpuacct mounted apart: the slice gets a twin there, in the
// default parent (made there too) or in a named parent that has one; a
// named parent's twin is never made. Nothing else is made anywhere.
func TestCreateSliceV1AcctTwin(t *testing.T) {
	hier := fakeV1Hier(t, true)
	base := filepath.Dir(hier.MountPoint)
	s, err := hier.CreateSlice(SliceSpec{Parent: hier.DefaultParent(), CreateParent: true, Limits: limits20of100})
	require.NoError(t, err)
	name := filepath.Base(s.Dir)
	assert.Equal(t, filepath.Join(hier.Acct, "throttlebench", name), s.acct)
	assert.DirExists(t, s.acct)
	assert.NoFileExists(t, filepath.Join(s.acct, "cpu.cfs_quota_us"), "no limit in the accounting twin")
	assert.Equal(t, []string{hier.MountPoint, hier.Acct}, dirs(t, base), "no other hierarchy touched")

	require.NoError(t, os.WriteFile(filepath.Join(s.acct, "cgroup.procs"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "cgroup.procs"), nil, 0o644))
	require.NoError(t, s.AddProc(4242))
	assert.Equal(t, "4242", read(t, filepath.Join(s.acct, "cgroup.procs")), "into the twin too")
	for _, d := range []string{s.Dir, s.acct} {
		require.NoError(t, os.WriteFile(filepath.Join(d, "cgroup.procs"), nil, 0o644), "the process has left")
	}
	require.NoError(t, s.Delete())
	assert.NoDirExists(t, s.Dir)
	assert.NoDirExists(t, s.acct)
	assert.NoFileExists(t, filepath.Join(hier.Acct, "throttlebench", "cpu.shares"), "a weight only in the cpu hierarchy")
	// The kernel's files go with the directory; the fake tree's must go first.
	require.NoError(t, os.Remove(filepath.Join(hier.DefaultParent(), "cpu.shares")))
	hier.RemoveDefaultParent()
	assert.NoDirExists(t, hier.DefaultParent())
	assert.NoDirExists(t, filepath.Join(hier.Acct, "throttlebench"))

	mine := filepath.Join(hier.MountPoint, "mine")
	require.NoError(t, os.Mkdir(mine, 0o755))
	s, err = hier.CreateSlice(SliceSpec{Parent: mine, Limits: limits20of100})
	require.NoError(t, err)
	assert.Empty(t, s.acct, "the named parent has no twin: none is made")
	assert.NoFileExists(t, filepath.Join(mine, "cpu.shares"), "a parent the user named keeps its weight")
	assert.NoDirExists(t, filepath.Join(hier.Acct, "mine"))
	_, err = s.Usage()
	assert.ErrorIs(t, err, ErrNoUsage)

	require.NoError(t, os.Mkdir(filepath.Join(hier.Acct, "mine"), 0o755))
	s, err = hier.CreateSlice(SliceSpec{Parent: mine, Limits: limits20of100})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(hier.Acct, "mine", filepath.Base(s.Dir)), s.acct)
}

// The counters of a slice: cpu.stat's through ours, in one reading, which
// leaves a missing one nil; the usage through the library, from the
// cpuacct twin.
func TestSliceStatAndUsageV1(t *testing.T) {
	hier := fakeV1Hier(t, true)
	s, err := hier.CreateSlice(SliceSpec{Parent: hier.DefaultParent(), CreateParent: true, Limits: limits20of100})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "cpu.stat"), []byte("nr_periods 7\nnr_throttled 5\nthrottled_time 123456789\n"), 0o644))
	st, err := s.Stat()
	require.NoError(t, err)
	assert.Equal(t, uint64(7), *st.NrPeriods)
	assert.Equal(t, uint64(5), *st.NrThrottled)
	assert.Equal(t, 123456789*time.Nanosecond, *st.ThrottledTime)
	assert.Nil(t, st.NrBursts, "a kernel without burst counters: null, not 0")
	assert.Nil(t, st.BurstTime)

	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "cpu.stat"), []byte("nr_periods 7\nnr_throttled 5\nthrottled_time 1\nnr_bursts 2\nburst_time 3000\n"), 0o644))
	st, err = s.Stat()
	require.NoError(t, err)
	assert.Equal(t, uint64(2), *st.NrBursts)
	assert.Equal(t, 3*time.Microsecond, *st.BurstTime)

	for f, v := range map[string]string{"cpuacct.usage": "5000000\n", "cpuacct.stat": "user 1\nsystem 0\n", "cpuacct.usage_percpu": "5000000 0\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(s.acct, f), []byte(v), 0o644))
	}
	u, err := s.Usage()
	require.NoError(t, err)
	assert.Equal(t, 5*time.Millisecond, u)
}

func TestSliceStatAndUsageV2(t *testing.T) {
	mp := fakeMount(t)
	require.NoError(t, os.WriteFile(filepath.Join(mp, "cgroup.subtree_control"), []byte("cpu\n"), 0o644))
	hier := Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/", Root: filepath.Dir(mp)}
	fakeOwnParent(t, hier)
	s, err := hier.CreateSlice(SliceSpec{Parent: hier.DefaultParent(), CreateParent: true, Limits: limits20of100})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "cpu.stat"), []byte("usage_usec 9000\nuser_usec 1\nsystem_usec 1\nnr_periods 4\nnr_throttled 3\nthrottled_usec 250\n"), 0o644))
	st, err := s.Stat()
	require.NoError(t, err)
	assert.Equal(t, uint64(4), *st.NrPeriods)
	assert.Equal(t, uint64(3), *st.NrThrottled)
	assert.Equal(t, 250*time.Microsecond, *st.ThrottledTime)
	assert.Nil(t, st.NrBursts)
	u, err := s.Usage()
	require.NoError(t, err)
	assert.Equal(t, 9*time.Millisecond, u)
}

// fakeOwnParent stands in for the default parent as the kernel would make
// it: a directory with the cgroup.subtree_control the library writes.
func fakeOwnParent(t *testing.T, hier Hierarchy) {
	t.Helper()
	require.NoError(t, os.MkdirAll(hier.DefaultParent(), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(hier.DefaultParent(), "cgroup.subtree_control"), nil, 0o644))
}

// v2, the default parent: it enables +cpu for its own children; the top
// must enable it for the default parent already, and is never written.
func TestCreateSliceV2DefaultParent(t *testing.T) {
	mp := fakeMount(t)
	hier := Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/", Root: filepath.Dir(mp)}
	top := filepath.Join(mp, "cgroup.subtree_control")
	require.NoError(t, os.WriteFile(top, []byte("memory\n"), 0o644))
	spec := SliceSpec{Parent: hier.DefaultParent(), CreateParent: true, Limits: Limits{Period: 100 * time.Millisecond, Quota: 50 * time.Millisecond}}
	_, err := hier.CreateSlice(spec)
	var pe *ParentError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "echo +cpu > "+top)
	assert.Empty(t, dirs(t, mp), "nothing created")
	assert.Equal(t, "memory\n", read(t, top), "the top is not changed")

	require.NoError(t, os.WriteFile(top, []byte("cpu memory\n"), 0o644))
	fakeOwnParent(t, hier)
	s, err := hier.CreateSlice(spec)
	require.NoError(t, err)
	assert.Equal(t, "+cpu", read(t, filepath.Join(hier.DefaultParent(), "cgroup.subtree_control")))
	assert.Equal(t, "10000", read(t, filepath.Join(hier.DefaultParent(), "cpu.weight")), "the default parent's weight")
	assert.Equal(t, "cpu memory\n", read(t, top), "the top is not written")
	assert.NoFileExists(t, filepath.Join(s.Dir, "cgroup.subtree_control"), "the slice's own children get nothing")
	assert.Equal(t, "50000 100000", read(t, filepath.Join(s.Dir, "cpu.max")))

	spec.Limits = Limits{Period: 10 * time.Millisecond, Quota: Unlimited, Burst: 3 * time.Millisecond}
	s, err = hier.CreateSlice(spec)
	require.NoError(t, err)
	assert.Equal(t, "max 10000", read(t, filepath.Join(s.Dir, "cpu.max")))
	assert.Equal(t, "3000", read(t, filepath.Join(s.Dir, "cpu.max.burst")))
}

// A v2 parent the user named must enable +cpu for its children already: it
// is checked, read only, before anything is made, and refused (exit 2)
// when it does not.
func TestCreateSliceV2NamedParentNeedsCPU(t *testing.T) {
	mp := fakeMount(t, "user")
	hier := Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/", Root: filepath.Dir(mp)}
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
	assert.NoFileExists(t, filepath.Join(user, "cpu.weight"), "nor its weight")
	assert.NoFileExists(t, filepath.Join(mp, "cgroup.subtree_control"))
}

func TestAddProcWritesThePID(t *testing.T) {
	hier := fakeV1Hier(t, false)
	s, err := hier.CreateSlice(SliceSpec{Parent: hier.DefaultParent(), CreateParent: true, Limits: limits20of100})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "cgroup.procs"), nil, 0o644))
	require.NoError(t, s.AddProc(4242))
	assert.Equal(t, "4242", read(t, filepath.Join(s.Dir, "cgroup.procs")))
	assert.Error(t, s.AddProc(0))

	unset := &Slice{Cgroup: Cgroup{Dir: s.Dir}}
	assert.Error(t, unset.AddProc(4242), "a slice the library did not set up takes nothing")
}

func TestDeleteRemovesTheDirectory(t *testing.T) {
	hier, parent := fakeParent(t)
	dir := filepath.Join(parent, "tb-1")
	require.NoError(t, os.Mkdir(dir, 0o755))
	s := &Slice{Cgroup: Cgroup{Hierarchy: hier, Dir: dir}}
	require.NoError(t, s.Delete())
	assert.NoDirExists(t, dir)
	assert.NoError(t, s.Delete(), "deleting twice is no error")

	hier = fakeV1Hier(t, true)
	s, err := hier.CreateSlice(SliceSpec{Parent: hier.DefaultParent(), CreateParent: true, Limits: limits20of100})
	require.NoError(t, err)
	require.NoError(t, s.Delete())
	assert.NoDirExists(t, s.Dir)
	assert.NoDirExists(t, s.acct)
	assert.NoError(t, s.Delete(), "deleting twice is no error")
}

// A child cgroup in a slice is not ours: the slice is left in place with an
// error, and the child is not removed.
func TestDeleteLeavesAChildCgroup(t *testing.T) {
	hier := fakeV1Hier(t, false)
	s, err := hier.CreateSlice(SliceSpec{Parent: hier.DefaultParent(), CreateParent: true, Limits: limits20of100})
	require.NoError(t, err)
	child := filepath.Join(s.Dir, "someone-elses")
	require.NoError(t, os.Mkdir(child, 0o755))
	err = s.Delete()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "someone-elses")
	assert.DirExists(t, child)
}
