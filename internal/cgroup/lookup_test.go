package cgroup

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// absFixture is fixture with an absolute root: a user names cgroup
// directories by absolute paths, and those must fall below the mounts.
func absFixture(t *testing.T, name string) (Host, string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("testdata", name))
	require.NoError(t, err)
	return Host{Root: root}, filepath.Join(root, "sys/fs/cgroup")
}

func TestUsageCgroup(t *testing.T) {
	tests := []struct {
		fixture string
		spec    string // a leading "@" stands for the fixture's sys/fs/cgroup
		path    string
		dir     string // relative to the fixture's sys/fs/cgroup
		usage   time.Duration
	}{
		// v1 with cpuacct mounted apart from cpu: a cgroup named in either
		// hierarchy is counted by the cpuacct cgroup of the same path.
		{"lookup-v1", "", "/job", "cpuacct/job", 1500 * time.Millisecond},
		{"lookup-v1", "@/cpuacct/job", "/job", "cpuacct/job", 1500 * time.Millisecond},
		{"lookup-v1", "@/cpu/job", "/job", "cpuacct/job", 1500 * time.Millisecond},
		{"lookup-v1", "@/cpu/kube/pod1/", "/kube/pod1", "cpuacct/kube/pod1", 250 * time.Millisecond},
		{"lookup-v1", "@/cpu/kube/../job", "/job", "cpuacct/job", 1500 * time.Millisecond},
		{"lookup-v1", "job", "/job", "cpuacct/job", 1500 * time.Millisecond},
		{"lookup-v1", "/kube/pod1", "/kube/pod1", "cpuacct/kube/pod1", 250 * time.Millisecond},
		{"lookup-v1", "/", "/", "cpuacct", 682601068594},
		{"lookup-v1", "@/cpu", "/", "cpuacct", 682601068594},
		// v2: the cgroup itself.
		{"lookup-v2", "", "/user.slice/app", "user.slice/app", 400 * time.Millisecond},
		{"lookup-v2", "@/system.slice/x.service", "/system.slice/x.service", "system.slice/x.service", 2500 * time.Microsecond},
		{"lookup-v2", "system.slice/x.service", "/system.slice/x.service", "system.slice/x.service", 2500 * time.Microsecond},
		{"lookup-v2", "/", "/", "", 9 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.spec, func(t *testing.T) {
			h, cg := absFixture(t, tt.fixture)
			spec := tt.spec
			if len(spec) > 0 && spec[0] == '@' {
				spec = cg + spec[1:]
			}
			got, err := h.UsageCgroup(spec)
			require.NoError(t, err)
			assert.Equal(t, tt.path, got.Path)
			assert.Equal(t, filepath.Join(cg, tt.dir), got.Dir)
			u, err := got.Usage()
			require.NoError(t, err)
			assert.Equal(t, tt.usage, u)
		})
	}
}

func TestUsageCgroupOfPID(t *testing.T) {
	h, cg := absFixture(t, "lookup-v1")
	got, err := h.UsageCgroupOfPID(4242)
	require.NoError(t, err)
	assert.Equal(t, "/kube/pod1", got.Path)
	assert.Equal(t, filepath.Join(cg, "cpuacct/kube/pod1"), got.Dir)

	h, cg = absFixture(t, "lookup-v2")
	got, err = h.UsageCgroupOfPID(77)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(cg, "system.slice/x.service"), got.Dir)

	_, err = h.UsageCgroupOfPID(12345)
	assert.ErrorIs(t, err, ErrNoProcess)
}

func TestUsageCgroupUnknown(t *testing.T) {
	tests := []struct {
		fixture, spec, want string
	}{
		// A cpu cgroup with no cpuacct twin: its usage counts in another
		// cpuacct cgroup, with other processes'.
		{"lookup-v1", "@/cpu/only-cpu", "has no cpuacct cgroup"},
		{"lookup-v1", "only-cpu", "has no cpuacct cgroup"},
		{"lookup-v1", "@/cpu/missing", "not a cgroup directory"},
		{"lookup-v1", "@/cpu/job/cpu.cfs_quota_us", "not a cgroup directory"},
		{"lookup-v1", "@/memory/job", "does not count CPU usage"},
		{"lookup-v1", "../etc", "climbs out"},
		{"lookup-v2", "nothing.slice", "does not exist"},
		{"lookup-v2", "user.slice/app/cpu.stat", "is a file"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture+"/"+tt.spec, func(t *testing.T) {
			h, cg := absFixture(t, tt.fixture)
			spec := tt.spec
			if spec[0] == '@' {
				spec = cg + spec[1:]
			}
			_, err := h.UsageCgroup(spec)
			assert.ErrorIs(t, err, ErrNoCgroup)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestUsageCgroupNoCounter(t *testing.T) {
	// v1 cpu alone, no cpuacct and no cgroup2: nothing counts usage.
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "proc/self"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "proc/self/mountinfo"),
		[]byte("32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"), 0o644))
	_, err := Host{Root: root}.UsageCgroup("job")
	assert.ErrorIs(t, err, ErrNoUsage)
}

// cgroupDir is a cgroup of version v at path whose directory holds files.
func cgroupDir(t *testing.T, v int, path string, files ...string) Cgroup {
	dir, root := fixtureMount(t)
	for _, f := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	return Cgroup{Hierarchy: Hierarchy{Version: v, MountPoint: dir, Root: root}, Path: path, Dir: dir}
}

// IsHostRoot: the host's top has v1's release_agent, or lacks v2's
// cgroup.type; a cgroup namespace's / is the other way round.
func TestIsHostRoot(t *testing.T) {
	for _, tc := range []struct {
		name string
		cg   Cgroup
		want bool
	}{
		{"v1 top", cgroupDir(t, 1, "/", "cpuacct.usage", "release_agent"), true},
		// A cgroup namespace's /: the kernel gives release_agent to the
		// host's top alone.
		{"v1 namespace top", cgroupDir(t, 1, "/", "cpuacct.usage"), false},
		{"v2 top", cgroupDir(t, 2, "/", "cpu.stat"), true},
		{"v2 namespace top", cgroupDir(t, 2, "/", "cpu.stat", "cgroup.type"), false},
		{"v1 child", cgroupDir(t, 1, "/job", "cpuacct.usage", "release_agent"), false},
		{"v2 child", cgroupDir(t, 2, "/job", "cpu.stat"), false},
	} {
		assert.Equal(t, tc.want, tc.cg.IsHostRoot(), tc.name)
	}
}

func TestUsageCounter(t *testing.T) {
	assert.Equal(t, "cpuacct.usage", Cgroup{Hierarchy: Hierarchy{Version: 1}}.UsageCounter())
	assert.Equal(t, "cpu.stat usage_usec", Cgroup{Hierarchy: Hierarchy{Version: 2}}.UsageCounter())
}
