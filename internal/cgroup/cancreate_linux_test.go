//go:build linux

package cgroup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCanCreateSlice(t *testing.T) {
	// Each mount point a fixture's (fixtureMount), its root the directory
	// above it.
	v1 := func(mp string) Hierarchy {
		return Hierarchy{Version: 1, MountPoint: mp, MountRoot: "/", Root: filepath.Dir(mp)}
	}
	v2 := func(mp string) Hierarchy {
		return Hierarchy{Version: 2, MountPoint: mp, MountRoot: "/", Root: filepath.Dir(mp)}
	}

	mp, _ := fixtureMount(t)
	ok, why := v1(mp).CanCreateSlice()
	assert.True(t, ok, why)
	assert.Equal(t, mp+" is writable", why, "without the default parent its mount point decides")
	assert.NoDirExists(t, filepath.Join(mp, "throttlebench"), "nothing created to find out")

	assert.NoError(t, os.Mkdir(filepath.Join(mp, "throttlebench"), 0o755))
	ok, why = v1(mp).CanCreateSlice()
	assert.True(t, ok, why)
	assert.Equal(t, filepath.Join(mp, "throttlebench")+" is writable", why)

	ok, why = v1(filepath.Join(mp, "missing")).CanCreateSlice()
	assert.False(t, ok)
	assert.Contains(t, why, "is not writable")

	// v2: the top does not enable +cpu for its children. throttlebench
	// does not write it there (it writes only its own default parent's),
	// so no slice would have a cpu.max.
	mp, _ = fixtureMount(t)
	writeFiles(t, mp, map[string]string{"cgroup.subtree_control": "memory\n", "cgroup.procs": "1\n7\n"})
	ok, why = v2(mp).CanCreateSlice()
	assert.False(t, ok)
	assert.Contains(t, why, "does not enable cpu for its children")
	assert.Contains(t, why, "echo +cpu > "+filepath.Join(mp, "cgroup.subtree_control"))
	assert.Equal(t, "memory\n", readString(t, filepath.Join(mp, "cgroup.subtree_control")), "nothing written to find out")
	// Enabled already: nothing to write there.
	writeFiles(t, mp, map[string]string{"cgroup.subtree_control": "cpu memory\n", "cpu.max": "max 100000\n"})
	ok, why = v2(mp).CanCreateSlice()
	assert.True(t, ok, why)
}

func TestCanCreateSliceUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write into any directory of a writable mount: a mode cannot make one unwritable for it")
	}
	mp := t.TempDir()
	assert.NoError(t, os.Chmod(mp, 0o555))
	t.Cleanup(func() { os.Chmod(mp, 0o755) })
	ok, why := Hierarchy{Version: 1, MountPoint: mp}.CanCreateSlice()
	assert.False(t, ok)
	assert.Contains(t, why, "permission denied")
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NoError(t, err)
	return string(data)
}
