//go:build unix

package cgroup

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/testenv"
)

// parentTree builds a stand-in for /sys/fs/cgroup: the cpu hierarchy at
// <tmp>/cgroup/cpu, another hierarchy beside it, a directory outside, and
// links in and out.
func parentTree(t *testing.T) (tmp string, hier Hierarchy) {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	mp := filepath.Join(tmp, "cgroup", "cpu")
	for _, d := range []string{"throttlebench", "user.slice/tb"} {
		require.NoError(t, os.MkdirAll(filepath.Join(mp, d), 0o755))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(tmp, "cgroup", "unified", "x"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(tmp, "etc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mp, "cpu.shares"), []byte("1024\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(tmp, "etc"), filepath.Join(mp, "escape")))
	require.NoError(t, os.Symlink(filepath.Join(mp, "user.slice"), filepath.Join(tmp, "link-in")))
	require.NoError(t, os.Symlink(filepath.Join(tmp, "etc"), filepath.Join(tmp, "link-out")))
	return tmp, Hierarchy{Version: 1, MountPoint: mp, MountRoot: "/"}
}

// snapshot lists every path below root, to show that nothing was created.
func snapshot(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		out = append(out, p)
		return err
	}))
	return out
}

func TestParentDir(t *testing.T) {
	tmp, hier := parentTree(t)
	mp := hier.MountPoint
	for _, c := range []struct{ name, in, want string }{
		{"directory below the mount point", mp + "/throttlebench", mp + "/throttlebench"},
		{"the mount point itself", mp, mp},
		{"trailing slash", mp + "/user.slice/tb/", mp + "/user.slice/tb"},
		{"unclean but inside", mp + "/user.slice/../throttlebench", mp + "/throttlebench"},
		{"cgroup path", "/throttlebench", mp + "/throttlebench"},
		{"relative cgroup path", "throttlebench", mp + "/throttlebench"},
		{"nested cgroup path", "/user.slice/tb", mp + "/user.slice/tb"},
		{"root cgroup path", "/", mp},
		{"a link that leads inside", tmp + "/link-in/tb", mp + "/user.slice/tb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := hier.ParentDir(c.in)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

// The cases of the hardening issue, and their relatives: each is refused
// with a reason, and nothing is created.
func TestParentDirRefuses(t *testing.T) {
	tmp, hier := parentTree(t)
	mp := hier.MountPoint
	before := snapshot(t, tmp)
	for _, c := range []struct{ name, in, why string }{
		{"missing nested cgroup", "throttlebench/a/b/c", "does not exist"},
		{"missing directory below the mount", mp + "/throttlebench/a", "does not exist"},
		{"a directory outside", tmp + "/etc", "outside the cpu hierarchy"},
		{"another hierarchy", tmp + "/cgroup/unified/x", "another cgroup hierarchy"},
		{"a missing path in another hierarchy", tmp + "/cgroup/unified/y", "another cgroup hierarchy"},
		{"dot-dot out of the mount", mp + "/../../etc", "outside the cpu hierarchy"},
		{"dot-dot out of the mount to nowhere", mp + "/../../../no-such-dir", "outside the cpu hierarchy"},
		{"cgroup path climbing out", "../x", "climbs out"},
		{"cgroup path climbing out after cleaning", "a/../../..", "climbs out"},
		{"absolute path climbing out", "/../../etc", "outside the cpu hierarchy"},
		{"absolute cgroup path climbing out", "/../../no-such-dir", "climbs out"},
		{"a link that leads out", tmp + "/link-out", "outside the cpu hierarchy"},
		{"a link inside that leads out", mp + "/escape", "outside the cpu hierarchy"},
		{"a cgroup path through a link out", "escape", "outside the cpu hierarchy"},
		{"an interface file", mp + "/cpu.shares", "not a cgroup directory"},
		{"an interface file as cgroup path", "cpu.shares", "not a cgroup directory"},
		{"empty", "", "empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := hier.ParentDir(c.in)
			var pe *ParentError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), c.why)
			assert.Equal(t, c.in, pe.Given)
		})
	}
	assert.Equal(t, before, snapshot(t, tmp), "ParentDir must not create anything")
}

func TestDefaultParent(t *testing.T) {
	hier := Hierarchy{Version: 2, MountPoint: "/sys/fs/cgroup", MountRoot: "/"}
	assert.Equal(t, "/sys/fs/cgroup/throttlebench", hier.DefaultParent())
}

// A link that leads inside, but that another user made (uid 65534,
// nobody), is not followed: it would decide where root makes slices.
func TestParentDirRefusesAPlantedLink(t *testing.T) {
	testenv.NeedRoot(t, "to give a link to another user")
	tmp, hier := parentTree(t)
	link := filepath.Join(tmp, "link-nobody")
	require.NoError(t, os.Symlink(filepath.Join(hier.MountPoint, "user.slice"), link))
	require.NoError(t, os.Lchown(link, 65534, 65534))
	_, err := hier.ParentDir(link + "/tb")
	var pe *ParentError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), link+" is a symbolic link owned by nobody (uid 65534)")
}
