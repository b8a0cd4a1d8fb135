//go:build linux

package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParentDir(t *testing.T) {
	const mp = "/sys/fs/cgroup/cpu"
	hier := Hierarchy{Version: 1, MountPoint: mp, MountRoot: "/"}
	tests := []struct {
		name, in, want string
	}{
		{"directory below the mount point", mp + "/throttlebench", mp + "/throttlebench"},
		{"the mount point itself", mp, mp},
		{"the mount point with a trailing slash", mp + "/", mp},
		{"unclean directory", mp + "/a/../b/", mp + "/b"},
		{"cgroup path", "/throttlebench", mp + "/throttlebench"},
		{"nested cgroup path", "/user.slice/tb", mp + "/user.slice/tb"},
		{"relative cgroup path", "throttlebench", mp + "/throttlebench"},
		{"root cgroup path", "/", mp},
		// Another hierarchy sharing the name prefix is not below this one.
		{"name prefix only", "/sys/fs/cgroup/cpuacct/x", mp + "/sys/fs/cgroup/cpuacct/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := hier.ParentDir(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A --parent that climbs out of the hierarchy is refused, so that cleanup
// never sweeps a directory outside it.
func TestParentDirOutside(t *testing.T) {
	hier := Hierarchy{Version: 1, MountPoint: "/sys/fs/cgroup/cpu", MountRoot: "/"}
	for _, in := range []string{"../x", "/../../etc", "a/../../.."} {
		_, err := hier.ParentDir(in)
		assert.ErrorIs(t, err, ErrParentOutside, in)
	}
}

func TestDefaultParent(t *testing.T) {
	hier := Hierarchy{Version: 2, MountPoint: "/sys/fs/cgroup", MountRoot: "/"}
	assert.Equal(t, "/sys/fs/cgroup/throttlebench", hier.DefaultParent())
}

func TestProcStartTime(t *testing.T) {
	a, err := procStartTime(os.Getpid())
	require.NoError(t, err)
	b, err := procStartTime(os.Getpid())
	require.NoError(t, err)
	assert.Equal(t, a, b, "a process's start time does not change")

	init, err := procStartTime(1)
	if err == nil {
		assert.LessOrEqual(t, init, a, "pid 1 started no later than this test")
	}

	_, err = procStartTime(999999999)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestNewSliceNameMatchesRE(t *testing.T) {
	st, err := procStartTime(os.Getpid())
	require.NoError(t, err)

	seen := map[string]bool{}
	for range 20 {
		name, err := newSliceName()
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

func TestKillAllWithoutProcsFile(t *testing.T) {
	// A directory that is not a cgroup (or one already removed) has nothing
	// to kill.
	assert.NoError(t, killAll(t.TempDir()))
}

func TestKillAllEmptyProcsFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cgroup.procs"), nil, 0o644))
	assert.NoError(t, killAll(dir))
}

func TestCleanStale(t *testing.T) {
	pid := os.Getpid()
	st, err := procStartTime(pid)
	require.NoError(t, err)

	// A plain directory standing in for a slice parent: none of it is a cgroup.
	parent := t.TempDir()
	dead := fmt.Sprintf("tb-999999999-%d-deadbeef", st)   // owner gone
	reused := fmt.Sprintf("tb-%d-%d-cafebabe", pid, st+1) // our pid, another process's start time
	live := fmt.Sprintf("tb-%d-%d-0badf00d", pid, st)     // this very process
	for _, d := range []string{dead, reused, live, "unrelated", "tb-999999999-1-DEADBEEF"} {
		require.NoError(t, os.Mkdir(filepath.Join(parent, d), 0o755))
	}
	// A file with a slice's name is not a slice.
	fileLike := "tb-999999999-1-feedface"
	require.NoError(t, os.WriteFile(filepath.Join(parent, fileLike), nil, 0o644))

	removed, err := CleanStale(parent)
	require.NoError(t, err)
	slices.Sort(removed)
	want := []string{filepath.Join(parent, reused), filepath.Join(parent, dead)}
	slices.Sort(want)
	assert.Equal(t, want, removed)

	assert.NoDirExists(t, filepath.Join(parent, dead))
	assert.NoDirExists(t, filepath.Join(parent, reused))
	assert.DirExists(t, filepath.Join(parent, live))
	assert.DirExists(t, filepath.Join(parent, "unrelated"))
	assert.DirExists(t, filepath.Join(parent, "tb-999999999-1-DEADBEEF"))
	assert.FileExists(t, filepath.Join(parent, fileLike))

	// A second sweep finds nothing more.
	removed, err = CleanStale(parent)
	require.NoError(t, err)
	assert.Empty(t, removed)
}

func TestCleanStaleMissingParent(t *testing.T) {
	removed, err := CleanStale(filepath.Join(t.TempDir(), "no-such-parent"))
	assert.NoError(t, err)
	assert.Empty(t, removed)
}

func TestCleanStaleReportsFailureAndGoesOn(t *testing.T) {
	// In a plain directory a stale "slice" that holds a file cannot be
	// removed (in cgroupfs rmdir ignores the interface files): the failure
	// is reported, and the other stale slice is still removed.
	parent := t.TempDir()
	stuck := filepath.Join(parent, "tb-999999999-1-00000001")
	gone := filepath.Join(parent, "tb-999999999-1-00000002")
	require.NoError(t, os.Mkdir(stuck, 0o755))
	require.NoError(t, os.Mkdir(gone, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(stuck, "cgroup.procs"), nil, 0o644))

	removed, err := CleanStale(parent)
	assert.Error(t, err)
	assert.Equal(t, []string{gone}, removed)
	assert.DirExists(t, stuck)
}
