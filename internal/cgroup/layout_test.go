package cgroup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLayout(t *testing.T) {
	for _, tt := range []struct {
		fixture, mode, unified string
		acctApart              bool
	}{
		// This machine: v1 controllers, each on its own hierarchy, and an
		// empty cgroup2 at /sys/fs/cgroup/unified.
		{"hybrid", ModeHybrid, "unified", true},
		{"v1-host", ModeV1, "", false}, // cpu,cpuacct share one hierarchy
		{"docker-v1", ModeV1, "", false},
		{"v2", ModeV2, ".", false},
		{"docker-v2", ModeV2, ".", false},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			h, cg := fixture(tt.fixture)
			got, err := h.Layout()
			require.NoError(t, err)
			want := Layout{Mode: tt.mode, CPUAcctApart: tt.acctApart}
			if tt.unified != "" {
				want.Unified = filepath.Join(cg, tt.unified)
			}
			assert.Equal(t, want, got)
		})
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"proc/self/mountinfo": "22 29 0:21 / /sys rw - sysfs sysfs rw\n"})
	got, err := Host{Root: root}.Layout()
	require.NoError(t, err)
	assert.Equal(t, Layout{Mode: ModeNone}, got, "no cgroup mount at all")
}

func TestSelfCpuset(t *testing.T) {
	for _, tt := range []struct {
		fixture, dir, path, cpus, effective string
		version                             int
	}{
		{"hybrid", "cpuset", "/", "0-1", "0-1", 1},
		// docker --cpuset-cpus 1: the container's cgroup is mounted at
		// the hierarchy's mount point.
		{"docker-v1", "cpuset", "/docker/" + dockerID, "1", "1", 1},
		// user.slice/app has no cpuset files (its parents did not enable
		// +cpuset): the root's set applies, and the root has no cpuset.cpus.
		{"v2", ".", "/", "", "0-15", 2},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			h, cg := fixture(tt.fixture)
			got, err := h.SelfCpuset()
			require.NoError(t, err)
			assert.Equal(t, tt.version, got.Version)
			assert.Equal(t, filepath.Join(cg, tt.dir), got.Dir)
			assert.Equal(t, tt.path, got.Path)
			assert.Equal(t, tt.cpus, got.CPUs)
			assert.Equal(t, tt.effective, got.Effective)
		})
	}
	for _, name := range []string{"docker-v2", "v2-nocpu"} {
		h, _ := fixture(name)
		_, err := h.SelfCpuset()
		assert.ErrorIs(t, err, ErrNoCpuset, name)
	}
}

func TestSelfCpusetV2OwnSet(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"proc/self/mountinfo":                           "34 22 0:29 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"proc/self/cgroup":                              "0::/job\n",
		"sys/fs/cgroup/cgroup.controllers":              "cpuset cpu\n",
		"sys/fs/cgroup/cpuset.cpus.effective":           "0-7\n",
		"sys/fs/cgroup/job/cpuset.cpus":                 "2-3\n",
		"sys/fs/cgroup/job/cpuset.cpus.effective":       "2-3\n",
		"sys/fs/cgroup/job/cgroup.controllers":          "cpuset cpu\n",
		"sys/fs/cgroup/unrelated/cpuset.cpus.effective": "4\n",
	})
	got, err := Host{Root: root}.SelfCpuset()
	require.NoError(t, err)
	assert.Equal(t, "/job", got.Path)
	assert.Equal(t, "2-3", got.CPUs)
	assert.Equal(t, "2-3", got.Effective)
}

func TestSelfCpusetV1BeforeEffective(t *testing.T) {
	// Before Linux 4.3 there is no cpuset.effective_cpus: the written set
	// is the one in force.
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"proc/self/mountinfo":                     "34 31 0:31 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n",
		"proc/self/cgroup":                        "3:cpuset:/pinned\n",
		"sys/fs/cgroup/cpuset/pinned/cpuset.cpus": "0,2\n",
	})
	got, err := Host{Root: root}.SelfCpuset()
	require.NoError(t, err)
	assert.Equal(t, "0,2", got.CPUs)
	assert.Equal(t, "0,2", got.Effective)
}

func TestBurstSupport(t *testing.T) {
	for _, tt := range []struct {
		fixture   string
		supported bool
		file      string // below the fixture's sys/fs/cgroup
	}{
		{"hybrid", true, "cpu/cpu.cfs_burst_us"},
		{"v1-burst", true, "cpu,cpuacct/burst/cpu.cfs_burst_us"},
		{"v1-old-kernel", false, "cpu,cpuacct/job/cpu.cfs_burst_us"}, // Linux < 5.14
		{"v2", true, "user.slice/app/cpu.max.burst"},
		{"docker-v2", true, "cpu.max.burst"},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			h, mp := fixture(tt.fixture)
			cg, err := h.Self(0)
			require.NoError(t, err)
			ok, known, file := cg.BurstSupport()
			assert.True(t, known)
			assert.Equal(t, tt.supported, ok)
			assert.Equal(t, filepath.Join(mp, tt.file), file)
		})
	}
}

func TestBurstSupportV2Root(t *testing.T) {
	// The root cgroup has no cpu.max: a child of it tells.
	root := t.TempDir()
	files := map[string]string{
		"proc/self/mountinfo":               "34 22 0:29 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"proc/self/cgroup":                  "0::/\n",
		"sys/fs/cgroup/cgroup.controllers":  "cpu\n",
		"sys/fs/cgroup/init.scope/cpu.stat": "usage_usec 1\n",
	}
	writeFiles(t, root, files)
	cg, err := Host{Root: root}.Self(2)
	require.NoError(t, err)
	_, known, _ := cg.BurstSupport()
	assert.False(t, known, "no cgroup with cpu.max in sight")

	writeFiles(t, root, map[string]string{"sys/fs/cgroup/system.slice/cpu.max": "max 100000\n"})
	ok, known, file := cg.BurstSupport()
	assert.True(t, known)
	assert.False(t, ok)
	assert.Equal(t, filepath.Join(root, "sys/fs/cgroup/system.slice/cpu.max.burst"), file)

	writeFiles(t, root, map[string]string{"sys/fs/cgroup/system.slice/cpu.max.burst": "0\n"})
	ok, _, _ = cg.BurstSupport()
	assert.True(t, ok)
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
}
