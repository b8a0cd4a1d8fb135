//go:build linux

package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProcStartTime(t *testing.T) {
	a, err := procStartTime("", os.Getpid())
	require.NoError(t, err)
	b, err := procStartTime("", os.Getpid())
	require.NoError(t, err)
	assert.Equal(t, a, b, "a process's start time does not change")

	init, err := procStartTime("", 1)
	if err == nil {
		assert.LessOrEqual(t, init, a, "pid 1 started no later than this test")
	}

	_, err = procStartTime("", 999999999)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestNewSliceNameMatchesRE(t *testing.T) {
	st, err := procStartTime("", os.Getpid())
	require.NoError(t, err)

	seen := map[string]bool{}
	for range 20 {
		name, err := newSliceName("")
		require.NoError(t, err)
		m := sliceNameRE.FindStringSubmatch(name)
		require.NotNil(t, m, "%q does not match %s", name, sliceNameRE)
		assert.Equal(t, strconv.Itoa(os.Getpid()), m[1], "pid")
		assert.Equal(t, strconv.FormatUint(st, 10), m[2], "start time")
		assert.False(t, seen[name], "duplicate name %q", name)
		seen[name] = true
	}
}

func TestSliceNameRE(t *testing.T) {
	for _, s := range []string{"tb-1-2-deadbeef", "tb-12345-678901234-0badf00d"} {
		assert.Regexp(t, sliceNameRE, s)
	}
	for _, s := range []string{
		"throttlebench",
		"tb-1-2-deadbee",    // too few random digits
		"tb-1-2-deadbeef0",  // too many
		"tb-1-2-DEADBEEF",   // upper case
		"tb-x-2-deadbeef",   // pid not a number
		"tb-1--deadbeef",    // no start time
		"xtb-1-2-deadbeef",  // prefix
		"tb-1-2-deadbeef/x", // suffix
	} {
		assert.NotRegexp(t, sliceNameRE, s)
	}
}

func TestCleanStale(t *testing.T) {
	pid := os.Getpid()
	st, err := procStartTime("", pid)
	require.NoError(t, err)

	// A fixture's directory standing in for a slice parent: none of it is
	// a cgroup.
	hier, parent := fakeParent(t)
	dead := fmt.Sprintf("tb-999999999-%d-deadbeef", st)   // owner gone
	reused := fmt.Sprintf("tb-%d-%d-cafebabe", pid, st+1) // our pid, another process's start time
	live := fmt.Sprintf("tb-%d-%d-0badf00d", pid, st)     // this very process
	occupied := "tb-999999999-1-0000000a"                 // owner gone, but processes inside
	nested := "tb-999999999-1-0000000b"                   // owner gone, but a child cgroup inside
	for _, d := range []string{dead, reused, live, occupied, nested, nested + "/child", "unrelated", "tb-999999999-1-DEADBEEF", "tb-999999999-1-deadbeef.old"} {
		require.NoError(t, os.Mkdir(filepath.Join(parent, d), 0o755))
	}
	// Live processes (this test, and its parent): not ours to touch.
	occupants := fmt.Sprintf("%d\n%d\n", pid, os.Getppid())
	require.NoError(t, os.WriteFile(filepath.Join(parent, occupied, "cgroup.procs"), []byte(occupants), 0o644))
	// A file or a link with a slice's name is not a slice.
	fileLike := "tb-999999999-1-feedface"
	require.NoError(t, os.WriteFile(filepath.Join(parent, fileLike), nil, 0o644))
	target := t.TempDir()
	linkLike := "tb-999999999-1-1111aaaa"
	require.NoError(t, os.Symlink(target, filepath.Join(parent, linkLike)))

	removed, skipped, err := hier.CleanStale(parent)
	require.NoError(t, err)
	slices.Sort(removed)
	want := []string{filepath.Join(parent, reused), filepath.Join(parent, dead)}
	slices.Sort(want)
	assert.Equal(t, want, removed)
	require.Len(t, skipped, 2)
	assert.Equal(t, filepath.Join(parent, occupied), skipped[0].Dir)
	assert.Contains(t, skipped[0].Reason, fmt.Sprintf("holds processes %d, %d", pid, os.Getppid()))
	assert.Equal(t, filepath.Join(parent, nested), skipped[1].Dir)
	assert.Contains(t, skipped[1].Reason, "child cgroups")

	for _, d := range []string{live, occupied, nested + "/child", "unrelated", "tb-999999999-1-DEADBEEF", "tb-999999999-1-deadbeef.old"} {
		assert.DirExists(t, filepath.Join(parent, d))
	}
	assert.FileExists(t, filepath.Join(parent, fileLike))
	assert.DirExists(t, target, "a link is never followed")

	// A second sweep removes nothing more and leaves the same alone.
	removed, skipped, err = hier.CleanStale(parent)
	require.NoError(t, err)
	assert.Empty(t, removed)
	assert.Len(t, skipped, 2)
}

// fakeParent is a fixture's hierarchy (fakeV1Hier) and a parent directory
// in it, where a test makes its slices and reads and removes them, beneath
// the mount point as on cgroupfs.
func fakeParent(t *testing.T) (Hierarchy, string) {
	t.Helper()
	hier := fakeV1Hier(t, false)
	parent := filepath.Join(hier.MountPoint, "parent")
	require.NoError(t, os.Mkdir(parent, 0o755))
	return hier, parent
}

func TestCleanStaleMissingParent(t *testing.T) {
	hier, parent := fakeParent(t)
	removed, skipped, err := hier.CleanStale(filepath.Join(parent, "no-such-parent"))
	assert.NoError(t, err)
	assert.Empty(t, removed)
	assert.Empty(t, skipped)
}

func TestCleanStaleReportsFailureAndGoesOn(t *testing.T) {
	// In a plain directory a stale "slice" that holds a file cannot be
	// removed (in cgroupfs rmdir ignores the interface files): the failure
	// is reported, and the other stale slice is still removed.
	hier, parent := fakeParent(t)
	stuck := filepath.Join(parent, "tb-999999999-1-00000001")
	gone := filepath.Join(parent, "tb-999999999-1-00000002")
	require.NoError(t, os.Mkdir(stuck, 0o755))
	require.NoError(t, os.Mkdir(gone, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(stuck, "cgroup.procs"), nil, 0o644))

	removed, _, err := hier.CleanStale(parent)
	assert.Error(t, err)
	assert.Equal(t, []string{gone}, removed)
	assert.DirExists(t, stuck)
}

func TestWaitEmpty(t *testing.T) {
	// No cgroup.procs (already removed, or not a cgroup) and an empty one:
	// nothing to wait for.
	hier, dir := fakeParent(t)
	fs := hier.cgroupfs()
	assert.NoError(t, waitEmpty(fs, dir, time.Second))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cgroup.procs"), nil, 0o644))
	assert.NoError(t, waitEmpty(fs, dir, time.Second))

	// Processes that stay are named, not killed.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte("4242\n"), 0o644))
	err := waitEmpty(fs, dir, 30*time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "processes 4242 that throttlebench did not start")
}

// A process that is exiting (a zombie: its threads may still be on their way
// out of a throttled slice) counts as dying; a live one never does.
func TestDying(t *testing.T) {
	cmd := exec.Command("true")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Wait() })
	zombie := strconv.Itoa(cmd.Process.Pid)
	require.Eventually(t, func() bool {
		data, err := os.ReadFile("/proc/" + zombie + "/stat")
		return err == nil && strings.Contains(string(data), ") Z ")
	}, 5*time.Second, 5*time.Millisecond, "true never became a zombie")

	assert.True(t, dying("", []string{zombie}))
	assert.True(t, dying("", []string{zombie, "999999999"}), "a process already gone is no obstacle")
	assert.False(t, dying("", []string{zombie, strconv.Itoa(os.Getpid())}), "this test is alive")
}
