//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An unprivileged user given a delegated cgroup v2 subtree — what systemd's
// Delegate=yes does: the directory and its cgroup.procs, cgroup.threads and
// cgroup.subtree_control chowned to the user — can create slices in it. As
// under systemd, the user's own processes sit in a leaf of the subtree
// ("shell") and the slices go into a sibling ("slices") that the user made.
func TestDelegatedSubtree(t *testing.T) {
	hier := needRoot(t)
	if hier.Version != 2 {
		t.Skip("delegation to unprivileged users is a cgroup v2 feature (runs in the test VM)")
	}
	const uid, gid = 65534, 65534
	parent := testParent(t, hier)
	deleg := filepath.Join(parent, "delegated")
	makeCgroup(t, hier, deleg, -1, 100000)
	for _, f := range []string{"", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control"} {
		require.NoError(t, os.Chown(filepath.Join(deleg, f), uid, gid))
	}
	shell := filepath.Join(deleg, "shell")
	require.NoError(t, os.Mkdir(shell, 0o755))
	t.Cleanup(func() { killCgroup(shell); os.Remove(shell) })
	require.NoError(t, os.Chown(filepath.Join(shell, "cgroup.procs"), uid, gid))
	// The user makes the parent of its slices, as its own (throttlebench
	// creates no parent but its default one, which only root may make).
	slices := filepath.Join(deleg, "slices")
	require.NoError(t, os.Mkdir(slices, 0o755))
	t.Cleanup(func() { os.Remove(slices) })
	for _, f := range []string{"", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control"} {
		require.NoError(t, os.Chown(filepath.Join(slices, f), uid, gid))
	}
	// The user enables the cpu controller for its slices down its own
	// subtree, as it may (written here as root; throttlebench does not
	// change a parent it is given).
	for _, d := range []string{deleg, slices} {
		writeFile(t, filepath.Join(d, "cgroup.subtree_control"), "+cpu")
	}

	// The user's process starts inside its leaf: moving it there afterwards
	// would need write access to the root's cgroup.procs, which a delegated
	// user lacks. clone3(CLONE_INTO_CGROUP) places it as root at birth.
	shellFD, err := syscall.Open(shell, syscall.O_DIRECTORY|syscall.O_RDONLY, 0)
	require.NoError(t, err)
	defer syscall.Close(shellFD)

	bin := binaryFor(t, uid)
	cmd := exec.Command(bin, "run", "--cgroup", "create", "--parent", slices, "--cpus", "0.5", "--batch", "5", "--iterations", "2", "--format", "json")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential:  &syscall.Credential{Uid: uid, Gid: gid},
		UseCgroupFD: true,
		CgroupFD:    shellFD,
	}
	r := runJSON(t, cmd)
	assert.Equal(t, "created", r.Cgroup.Mode)
	assert.Equal(t, int64(50000), r.Cgroup.QuotaUs)
	assert.Equal(t, slices, filepath.Dir(r.Cgroup.Dir))
	assert.NoDirExists(t, r.Cgroup.Dir)
}

// binaryFor copies the binary where an unprivileged user can execute it.
func binaryFor(t *testing.T, uid int) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tb-unpriv-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "throttlebench")
	data, err := os.ReadFile(binary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))
	return bin
}
