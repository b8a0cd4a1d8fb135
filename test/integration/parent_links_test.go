//go:build linux

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A --parent through links another user planted (issue 48): a directory
// in /tmp owned by nobody (uid 65534), holding nobody's links to a real
// cgroup directory and to a directory that is no cgroup. Each --parent
// through them, the link itself or a directory past it, is refused with
// exit 2 and one line naming --parent, and nothing is made in either
// target: ParentDir follows no link someone else made, and what
// throttlebench writes is opened beneath the cgroup mount (the cgroup
// package's cgroupfs_linux.go), so no write lands outside cgroupfs.
func TestParentThroughAPlantedLink(t *testing.T) {
	hier := needRoot(t)
	const nobody = 65534
	parent := testParent(t, hier)
	sub := filepath.Join(parent, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	t.Cleanup(func() { os.Remove(sub) }) // before testParent's check
	plain := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(plain, "sub"), 0o755))

	planted, err := os.MkdirTemp("/tmp", "tb-planted-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(planted) })
	require.NoError(t, os.Chown(planted, nobody, nobody))
	link := func(name, target string) string {
		l := filepath.Join(planted, name)
		require.NoError(t, os.Symlink(target, l))
		require.NoError(t, os.Lchown(l, nobody, nobody))
		return l
	}
	toCgroup, toPlain := link("to-cgroup", parent), link("to-plain", plain)

	for _, p := range []string{toCgroup, toCgroup + "/sub", toPlain, toPlain + "/sub"} {
		o := tb(t, "run", "--cgroup", "create", "--parent", p, "--cpus", "0.5", "--batch", "1", "--iterations", "1")
		assert.Equal(t, 2, o.code, "--parent %s: %s", p, o.stderr)
		assert.Equal(t, 1, strings.Count(o.stderr, "\n"), "one line: %q", o.stderr)
		assert.Contains(t, o.stderr, fmt.Sprintf("invalid --parent %q", p))
		assert.Contains(t, o.stderr, filepath.Dir(toCgroup), "it names where the link is")
		o = tb(t, "cleanup", "--parent", p)
		assert.Equal(t, 2, o.code, "cleanup --parent %s: %s", p, o.stderr)
	}
	assert.Equal(t, []string{sub}, subdirs(t, parent), "nothing made in the cgroup the link leads to")
	assert.Empty(t, subdirs(t, sub))
	if hier.Acct != "" && hier.Acct != hier.MountPoint {
		twin := filepath.Join(hier.Acct, strings.TrimPrefix(parent, hier.MountPoint))
		assert.Empty(t, subdirs(t, twin), "nor in its cpuacct twin")
	}
	entries, err := os.ReadDir(plain)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing made outside cgroupfs")
	entries, err = os.ReadDir(filepath.Join(plain, "sub"))
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing made outside cgroupfs")
}
