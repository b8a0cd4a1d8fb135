package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScopeNameRE(t *testing.T) {
	assert.Regexp(t, scopeNameRE, "throttlebench-123-456-deadbeef.scope")
	for _, s := range []string{
		"throttlebench-123-456-deadbeef",        // no suffix
		"throttlebench-123-456-deadbeef.slice",  // a slice
		"throttlebench-123-456-DEADBEEF.scope",  // upper case
		"throttlebench-x-456-deadbeef.scope",    // pid not a number
		"throttlebench-123--deadbeef.scope",     // no start time
		"throttlebench-123-456-deadbee.scope",   // too few
		"xthrottlebench-123-456-deadbeef.scope", // prefix
		"throttlebench.slice",
	} {
		assert.NotRegexp(t, scopeNameRE, s)
	}
}

// TestCleanScopes: the owner rule of slices, applied to scopes, on a plain
// directory tree standing in for /sys/fs/cgroup/throttlebench.slice.
func TestCleanScopes(t *testing.T) {
	pid := os.Getpid()
	st, err := procStartTime("", pid)
	require.NoError(t, err)
	hier := fakeV1Hier(t, false)
	top := hier.MountPoint
	in := filepath.Join(top, ScopeSlice)
	mk := func(dirs ...string) {
		for _, d := range dirs {
			require.NoError(t, os.MkdirAll(filepath.Join(in, d), 0o755))
		}
	}
	occupy := func(dir string) {
		require.NoError(t, os.WriteFile(filepath.Join(in, dir, "cgroup.procs"), []byte(fmt.Sprintf("%d\n", pid)), 0o644))
	}
	dead := "throttlebench-999999999-1-deadbeef.scope"                     // owner gone: emptied and stopped
	live := fmt.Sprintf("throttlebench-%d-%d-0badf00d.scope", pid, st)     // this very process
	reused := fmt.Sprintf("throttlebench-%d-%d-cafebabe.scope", pid, st+1) // our pid, another start: gone, but a slice holds a process
	selfBusy := "throttlebench-999999999-1-0000000c.scope"                 // the leaf self holds a process
	scopeBusy := "throttlebench-999999999-1-0000000d.scope"                // the scope itself holds one
	failing := "throttlebench-999999999-1-0000000e.scope"                  // emptied, but its stop fails
	deadSlice := "tb-999999999-1-00000001"
	mk(dead+"/self", dead+"/"+deadSlice,
		live+"/self", live+fmt.Sprintf("/tb-%d-%d-00000002", pid, st),
		reused+"/self", reused+fmt.Sprintf("/tb-%d-%d-00000003", pid, st+1),
		selfBusy+"/self", scopeBusy, failing+"/self",
		"throttlebench-999999999-1-DEADBEEF.scope", "throttlebench-999999999-1-deadbeef.slice", "other.scope")
	occupy(reused + fmt.Sprintf("/tb-%d-%d-00000003", pid, st+1))
	occupy(selfBusy + "/self")
	occupy(scopeBusy)
	// A file with a scope's name is not a scope.
	require.NoError(t, os.WriteFile(filepath.Join(in, "throttlebench-999999999-1-feedface.scope"), nil, 0o644))

	var asked []string
	stop := func(unit string) error {
		asked = append(asked, unit)
		if unit == failing {
			return errors.New("no bus")
		}
		return nil
	}
	removed, stopped, skipped, err := cleanScopes(hier, filepath.Join(hier.MountPoint, ScopeSlice), stop)
	require.Error(t, err, "a failed stop is reported")
	assert.Contains(t, err.Error(), "no bus")

	slices.Sort(removed)
	want := []string{
		filepath.Join(in, dead, deadSlice), filepath.Join(in, dead, "self"),
		filepath.Join(in, reused, "self"), filepath.Join(in, failing, "self"),
	}
	slices.Sort(want)
	assert.Equal(t, want, removed)
	assert.Equal(t, []string{dead}, stopped)
	slices.Sort(asked)
	assert.Equal(t, []string{failing, dead}, asked, "only emptied scopes of runs that no longer live are stopped")

	left := map[string]string{}
	for _, s := range skipped {
		rel, _ := filepath.Rel(in, s.Dir)
		left[rel] = s.Reason
	}
	assert.Len(t, left, 5, "%v", left)
	assert.Contains(t, left[reused+fmt.Sprintf("/tb-%d-%d-00000003", pid, st+1)], fmt.Sprintf("holds processes %d", pid))
	assert.Contains(t, left[reused], "not stopped")
	assert.Contains(t, left[selfBusy+"/self"], fmt.Sprintf("holds processes %d", pid))
	assert.Contains(t, left[selfBusy], "not stopped")
	assert.Contains(t, left[scopeBusy], fmt.Sprintf("holds processes %d: the scope %s is not stopped", pid, scopeBusy))

	// The live run's scope and the names that are not ours are untouched.
	for _, d := range []string{live + "/self", live + fmt.Sprintf("/tb-%d-%d-00000002", pid, st), "throttlebench-999999999-1-DEADBEEF.scope", "throttlebench-999999999-1-deadbeef.slice", "other.scope"} {
		assert.DirExists(t, filepath.Join(in, d))
	}

	// A second sweep stops the emptied scope again (systemd would have
	// collected it) and removes nothing more.
	asked = nil
	removed, _, skipped, _ = cleanScopes(hier, filepath.Join(hier.MountPoint, ScopeSlice), stop)
	assert.Empty(t, removed)
	assert.Len(t, skipped, 5)
	assert.Contains(t, asked, dead)
}

func TestCleanScopesNoSlice(t *testing.T) {
	hier := fakeV1Hier(t, false)
	removed, stopped, skipped, err := cleanScopes(hier, filepath.Join(hier.MountPoint, ScopeSlice), func(string) error {
		t.Fatal("nothing to stop")
		return nil
	})
	assert.NoError(t, err)
	assert.Empty(t, removed)
	assert.Empty(t, stopped)
	assert.Empty(t, skipped)
}
