package cgroup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One rule picks the cpuacct hierarchy of the cpu hierarchy, for the
// slice's twin, the layout and the usage lookup alike: the cpuacct mount
// with cpu's mount root, not merely the first one (here a part of the
// tree, /job, mounted again before the whole).
func TestMountTableOneAcctRule(t *testing.T) {
	root := t.TempDir()
	mi := "30 23 0:28 /job /mnt/acct-job rw - cgroup cgroup rw,cpuacct\n" +
		"31 23 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n" +
		"32 23 0:28 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n"
	require.NoError(t, os.MkdirAll(filepath.Join(root, "proc/self"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "proc/self/mountinfo"), []byte(mi), 0o644))
	h := Host{Root: root}

	hier, err := h.CPUHierarchy(0)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "sys/fs/cgroup/cpuacct"), hier.Acct)
	assert.True(t, hier.AcctApart())

	l, err := h.Layout()
	require.NoError(t, err)
	assert.True(t, l.CPUAcctApart)

	um, err := h.usageMounts()
	require.NoError(t, err)
	assert.Equal(t, hier.Acct, um.acct.MountPoint)
	assert.Equal(t, "/", um.acct.MountRoot)
}

// The process's line of a hierarchy: v2's "0::" line, or the v1 line
// whose controllers hold the one asked for.
func TestProcCgroupsPath(t *testing.T) {
	lines, err := parseProcCgroup([]byte("3:cpuset:/c\n2:cpu,cpuacct:/a:b\n0::/u\n"))
	require.NoError(t, err)
	for _, tt := range []struct {
		version int
		ctrl    string
		want    string
		ok      bool
	}{
		{1, "cpu", "/a:b", true},
		{1, "cpuacct", "/a:b", true},
		{1, "cpuset", "/c", true},
		{1, "memory", "", false},
		{2, "", "/u", true},
	} {
		got, ok := Hierarchy{Version: tt.version}.version().line(lines, tt.ctrl)
		assert.Equal(t, tt.ok, ok, tt.ctrl)
		assert.Equal(t, tt.want, got, tt.ctrl)
	}
}
