package cgroup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Where cpusets live beside the cpu hierarchy: v1's own hierarchy where it
// is mounted apart (our hosts, systemd's, a container's), v2's one tree
// when its top offers the controller.
func TestCpusetHierarchy(t *testing.T) {
	for _, tt := range []struct {
		fixture string
		want    Hierarchy // MountPoint relative to the fixture's sys/fs/cgroup
	}{
		{"hybrid", Hierarchy{Version: 1, MountPoint: "cpuset", MountRoot: "/"}},
		{"v1-host", Hierarchy{Version: 1, MountPoint: "cpuset", MountRoot: "/"}},
		{"docker-v1", Hierarchy{Version: 1, MountPoint: "cpuset", MountRoot: "/docker/" + dockerID}},
		{"v2", Hierarchy{Version: 2, MountPoint: "", MountRoot: "/"}},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			h, cg := fixture(tt.fixture)
			cpu, err := h.CPUHierarchy(0)
			require.NoError(t, err)
			got, err := h.CpusetHierarchy(cpu)
			require.NoError(t, err)
			want := tt.want
			want.MountPoint = filepath.Join(cg, want.MountPoint)
			want.Root = h.Root
			assert.Equal(t, want, got)
			assert.Equal(t, cpu.Version == 1, cpu.Separate(got))
		})
	}

	// A v2 tree whose top offers no cpuset controller has none to give.
	mp, root := fixtureMount(t)
	require.NoError(t, os.WriteFile(filepath.Join(mp, "cgroup.controllers"), []byte("cpu io memory\n"), 0o644))
	_, err := Host{Root: root}.CpusetHierarchy(Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/", Root: root})
	assert.ErrorIs(t, err, ErrNoCpuset)

	// A v1 host without a cpuset mount.
	h := Host{Root: t.TempDir()}
	require.NoError(t, os.MkdirAll(filepath.Join(h.Root, "proc/self"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(h.Root, "proc/self/mountinfo"),
		[]byte("32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"), 0o644))
	_, err = h.CpusetHierarchy(Hierarchy{Version: 1, MountPoint: filepath.Join(h.Root, "sys/fs/cgroup/cpu")})
	assert.ErrorIs(t, err, ErrNoCpuset)
}

// A slice's twin is the same path below the cpuset mount; where cpu and
// cpuset share a hierarchy the slice is its own twin.
func TestTwinDir(t *testing.T) {
	cpu := Hierarchy{Version: 1, MountPoint: "/sys/fs/cgroup/cpu", MountRoot: "/"}
	cpuset := Hierarchy{Version: 1, MountPoint: "/sys/fs/cgroup/cpuset", MountRoot: "/"}
	assert.Equal(t, "/sys/fs/cgroup/cpuset/throttlebench", cpu.TwinDir(cpuset, cpu.DefaultParent()))
	assert.Equal(t, cpuset.DefaultParent(), cpu.TwinDir(cpuset, cpu.DefaultParent()))
	assert.Equal(t, "/sys/fs/cgroup/cpuset/a/b/tb-1-2-deadbeef", cpu.TwinDir(cpuset, "/sys/fs/cgroup/cpu/a/b/tb-1-2-deadbeef"))
	assert.Equal(t, "/sys/fs/cgroup/cpuset", cpu.TwinDir(cpuset, "/sys/fs/cgroup/cpu"))
	assert.Equal(t, "/sys/fs/cgroup/cpuset/x", cpu.TwinDir(cpuset, "/sys/fs/cgroup/cpu/x/"))

	both := Hierarchy{Version: 1, MountPoint: "/sys/fs/cgroup/cpu,cpuset", MountRoot: "/"}
	assert.False(t, both.Separate(both))
	assert.Equal(t, "/sys/fs/cgroup/cpu,cpuset/a", both.TwinDir(both, "/sys/fs/cgroup/cpu,cpuset/a"))
	v2 := Hierarchy{Version: 2, MountPoint: "/sys/fs/cgroup", MountRoot: "/"}
	assert.Equal(t, "/sys/fs/cgroup/throttlebench", v2.TwinDir(v2, v2.DefaultParent()))
}

// A parent's twins: in cpuacct's hierarchy where v1 mounts it apart, in
// cpusets' where they are apart; none where one hierarchy holds them all.
func TestTwinParents(t *testing.T) {
	cpu := Hierarchy{Version: 1, MountPoint: "/sys/fs/cgroup/cpu", MountRoot: "/", Acct: "/sys/fs/cgroup/cpuacct"}
	cpuset := Hierarchy{Version: 1, MountPoint: "/sys/fs/cgroup/cpuset", MountRoot: "/"}
	assert.True(t, cpu.AcctApart())
	assert.Equal(t, []string{"/sys/fs/cgroup/cpuacct/throttlebench", "/sys/fs/cgroup/cpuset/throttlebench"},
		cpu.TwinParents(cpu.DefaultParent(), &cpuset))
	assert.Equal(t, []string{"/sys/fs/cgroup/cpuacct/a/b"}, cpu.TwinParents("/sys/fs/cgroup/cpu/a/b", nil))

	both := Hierarchy{Version: 1, MountPoint: "/sys/fs/cgroup/cpu,cpuacct", MountRoot: "/", Acct: "/sys/fs/cgroup/cpu,cpuacct"}
	assert.False(t, both.AcctApart())
	assert.Equal(t, []string{"/sys/fs/cgroup/cpuset/a"}, both.TwinParents("/sys/fs/cgroup/cpu,cpuacct/a", &Hierarchy{MountPoint: "/sys/fs/cgroup/cpuset"}))
	v2 := Hierarchy{Version: 2, MountPoint: "/sys/fs/cgroup", MountRoot: "/"}
	assert.Empty(t, v2.TwinParents(v2.DefaultParent(), &v2))
}

// The CPUs a new cpuset could have are its nearest existing ancestor's in
// force: v1's cpuset.effective_cpus (cpuset.cpus on kernels without it),
// v2's cpuset.cpus.effective; a v2 cgroup without the controller has no
// such files, and its parent's count.
func TestCpusetCPUs(t *testing.T) {
	mp, root := fixtureMount(t)
	v1 := Hierarchy{Version: 1, MountPoint: mp, MountRoot: "/", Root: root}
	write := func(rel, name, v string) {
		require.NoError(t, os.MkdirAll(filepath.Join(mp, rel), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(mp, rel, name), []byte(v), 0o644))
	}
	write("", "cpuset.effective_cpus", "0-7\n")
	write("", "cpuset.cpus", "0-15\n")
	got, err := v1.CpusetCPUs(filepath.Join(mp, "throttlebench"))
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, got, "the default parent not made yet: the top's, in force")

	write("old", "cpuset.cpus", "2,4\n")
	got, err = v1.CpusetCPUs(filepath.Join(mp, "old"))
	require.NoError(t, err)
	assert.Equal(t, []int{2, 4}, got)

	// A v1 cpuset not set up has no CPUs: known, and none (not nil,
	// which would say they are not known).
	write("empty", "cpuset.cpus", "\n")
	got, err = v1.CpusetCPUs(filepath.Join(mp, "empty"))
	require.NoError(t, err)
	assert.NotNil(t, got)
	assert.Empty(t, got)

	v2mp, v2root := fixtureMount(t)
	v2 := Hierarchy{Version: 2, MountPoint: v2mp, MountRoot: "/", Root: v2root}
	require.NoError(t, os.WriteFile(filepath.Join(v2mp, "cpuset.cpus.effective"), []byte("0-1\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(v2mp, "user.slice"), 0o755))
	got, err = v2.CpusetCPUs(filepath.Join(v2mp, "user.slice"))
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, got)

	_, err = Hierarchy{Version: 2, MountPoint: t.TempDir()}.CpusetCPUs("/elsewhere")
	assert.ErrorIs(t, err, ErrNoCpuset)
	bad, badRoot := fixtureMount(t)
	require.NoError(t, os.WriteFile(filepath.Join(bad, "cpuset.cpus"), []byte("0-x\n"), 0o644))
	_, err = Hierarchy{Version: 1, MountPoint: bad, Root: badRoot}.CpusetCPUs(bad)
	assert.Error(t, err)
}
