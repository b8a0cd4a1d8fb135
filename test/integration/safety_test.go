//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A v2 --parent that does not enable the cpu controller for its children
// is refused (exit 2) and left as it was: throttlebench writes no
// cgroup.subtree_control but its default parent's (and the top's).
func TestNamedParentIsNotChanged(t *testing.T) {
	hier := needRoot(t)
	if hier.Version != 2 {
		t.Skip("cgroup.subtree_control is cgroup v2's (runs in the test VM)")
	}
	bare := filepath.Join(testParent(t, hier), "bare")
	require.NoError(t, os.Mkdir(bare, 0o755))
	t.Cleanup(func() { os.Remove(bare) })
	ctl := filepath.Join(bare, "cgroup.subtree_control")
	o := tb(t, "run", "--cgroup", "create", "--parent", bare, "--cpus", "0.5", "--batch", "1", "--iterations", "1")
	assert.Equal(t, 2, o.code, o.stderr)
	assert.Contains(t, o.stderr, "echo +cpu > "+ctl)
	assert.Equal(t, 1, strings.Count(o.stderr, "\n"), "one line: %q", o.stderr)
	data, err := os.ReadFile(ctl)
	require.NoError(t, err)
	assert.Empty(t, strings.TrimSpace(string(data)), "the parent's subtree_control is not written")
	assert.Empty(t, subdirs(t, bare), "nothing created")

	writeFile(t, ctl, "+cpu")
	o = tb(t, "run", "--cgroup", "create", "--parent", bare, "--cpus", "0.5", "--batch", "1", "--iterations", "1")
	assert.Equal(t, 0, o.code, o.stderr)
	assert.Empty(t, subdirs(t, bare))
}

// A --parent that is missing or outside the cpu hierarchy exits 2 and
// creates nothing: not the path asked for, not what the old code made of it.
func TestParentIsNeverCreated(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	mp := hier.MountPoint
	rel := strings.TrimPrefix(parent, mp+"/")
	linkDir := t.TempDir()
	link := filepath.Join(linkDir, "to-cgroup")
	require.NoError(t, os.Symlink(filepath.Join(parent, "via-link"), link))

	cases := []struct {
		parent  string
		mustNot []string // what must not exist afterwards
	}{
		{rel + "/a/b/c", []string{filepath.Join(parent, "a")}},
		{"/etc", []string{filepath.Join(mp, "etc")}},
		{mp + "/../../../etc", []string{filepath.Join(mp, "sys")}},
		{link, []string{filepath.Join(parent, "via-link")}},
		{"../x", []string{filepath.Join(filepath.Dir(mp), "x")}},
	}
	// Another cgroup mount beside ours, where there is one (v1 hosts).
	for _, other := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids"} {
		if other != mp && isDir(other) {
			cases = append(cases, struct {
				parent  string
				mustNot []string
			}{other + "/tb-x", []string{other + "/tb-x", filepath.Join(mp, other, "tb-x")}})
			break
		}
	}
	for _, c := range cases {
		o := tb(t, "run", "--cgroup", "create", "--parent", c.parent, "--cpus", "0.5", "--batch", "1", "--iterations", "1")
		assert.Equal(t, 2, o.code, "--parent %s: %s", c.parent, o.stderr)
		assert.Equal(t, 1, strings.Count(o.stderr, "\n"), "one line: %q", o.stderr)
		assert.Contains(t, o.stderr, fmt.Sprintf("invalid --parent %q", c.parent))
		for _, p := range c.mustNot {
			assert.NoDirExists(t, p, "--parent %s", c.parent)
		}
		o = tb(t, "cleanup", "--parent", c.parent)
		assert.Equal(t, 2, o.code, "cleanup --parent %s: %s", c.parent, o.stderr)
	}
}

// cleanup and the sweep at the start of every run never kill anything and
// never touch a directory that is not an empty slice of a dead run: look-alike
// names with live and dead owners, a process inside, another tool's directory.
func TestCleanupNeverKills(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)

	sleeper := func() *exec.Cmd {
		cmd := exec.Command("sleep", "120")
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	mk := func(name string, procs ...int) string {
		dir := filepath.Join(parent, name)
		require.NoError(t, os.Mkdir(dir, 0o755))
		for _, p := range procs {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(p)), 0))
		}
		t.Cleanup(func() {
			killCgroup(dir) // only the sleepers this test started are in there
			os.Remove(dir)
		})
		return dir
	}
	deadOwner := "tb-999999-1-"
	inSlice := sleeper()
	inOther := sleeper()
	occupied := mk(deadOwner+"deadbeef", inSlice.Process.Pid)
	other := mk("other-tool", inOther.Process.Pid)
	empty := mk(deadOwner + "0badf00d")
	// This test process as a live owner.
	st := startTime(t, os.Getpid())
	live := mk(fmt.Sprintf("tb-%d-%d-cafebabe", os.Getpid(), st))

	o := tb(t, "run", "--cgroup", "create", "--parent", parent, "--cpus", "0.5", "--batch", "1", "--iterations", "1")
	require.Equal(t, 0, o.code, o.stderr)
	var r result
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r))
	assert.Contains(t, r.Warnings.text(), "left 1 slice-like directory", "said in the warnings")
	assert.NoDirExists(t, empty, "the empty slice of a dead run is removed")

	o = tb(t, "cleanup", "--parent", parent)
	require.Equal(t, 0, o.code, o.stderr)
	assert.Contains(t, o.stdout, "left "+occupied+": holds processes "+strconv.Itoa(inSlice.Process.Pid))

	for _, p := range []*exec.Cmd{inSlice, inOther} {
		assert.True(t, alive(p.Process.Pid), "process %d was killed", p.Process.Pid)
	}
	for _, d := range []string{occupied, other, live} {
		assert.DirExists(t, d)
	}
}

// An unprivileged user's --output into a file only root may write is
// refused before the run, exit 2, and the file is untouched.
func TestOutputCheckedForTheUser(t *testing.T) {
	needRoot(t)
	// Not t.TempDir: nobody must be able to reach the directory.
	dir, err := os.MkdirTemp("", "tb-out-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	owned := filepath.Join(dir, "root-only.json")
	require.NoError(t, os.WriteFile(owned, []byte("root's"), 0o644))
	bin := binaryFor(t, 65534)

	for _, out := range []string{owned, filepath.Join(dir, "new.json")} {
		cmd := exec.Command(bin, "run", "--cgroup", "current", "--batch", "1", "--iterations", "1", "--format", "json", "-o", out)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		o := runCmd(t, cmd)
		assert.Equal(t, 2, o.code, o.stderr)
		assert.Contains(t, o.stderr, fmt.Sprintf("invalid --output %q", out))
		assert.Contains(t, o.stderr, "not writable")
	}
	data, err := os.ReadFile(owned)
	require.NoError(t, err)
	assert.Equal(t, "root's", string(data))
	assert.NoFileExists(t, filepath.Join(dir, "new.json"))
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// startTime is field 22 of /proc/<pid>/stat, as slice names carry it.
func startTime(t *testing.T, pid int) uint64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	v, err := strconv.ParseUint(f[19], 10, 64)
	require.NoError(t, err)
	return v
}
