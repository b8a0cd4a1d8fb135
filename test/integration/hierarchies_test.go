//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// v1Mounts are the mount points of every cgroup v1 hierarchy, read from
// mountinfo apart from the code under test.
func v1Mounts(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	require.NoError(t, err)
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if f := strings.Fields(pre); ok && len(f) >= 5 && strings.HasPrefix(post, "cgroup ") {
			out = append(out, f[4])
		}
	}
	return out
}

// On v1 a slice is made only in the hierarchies it needs: cpu, cpuacct
// where it is mounted apart (its usage counter), and cpuset with --cpuset.
// No directory appears in memory, pids, blkio, devices or any other, not
// even the default parent.
func TestSliceOnlyInItsHierarchies(t *testing.T) {
	hier := needRoot(t)
	if hier.Version != 1 {
		t.Skip("hierarchies apart are cgroup v1's; v2 has one")
	}
	h := cgroup.Host{Root: "/"}
	cpusets, err := h.CpusetHierarchy(hier)
	require.NoError(t, err)
	mounts := v1Mounts(t)
	require.Greater(t, len(mounts), 2, "a v1 host mounts several hierarchies: %v", mounts)
	for _, withCpuset := range []bool{false, true} {
		spec := cgroup.SliceSpec{Parent: hier.DefaultParent(), CreateParent: true,
			Limits: cgroup.Limits{Period: 100 * time.Millisecond, Quota: 50 * time.Millisecond}}
		want := []string{hier.MountPoint}
		if hier.Acct != "" && hier.Acct != hier.MountPoint {
			want = append(want, hier.Acct)
		}
		if withCpuset {
			spec.Cpuset = &cgroup.CpusetSpec{Hier: cpusets, Parent: hier.TwinDir(cpusets, hier.DefaultParent()), CPUs: []int{0}}
			if hier.Separate(cpusets) {
				want = append(want, cpusets.MountPoint)
			}
		}
		s, err := hier.CreateSlice(spec)
		require.NoError(t, err, "cpuset %v", withCpuset)
		t.Cleanup(func() {
			s.Delete()
			hier.RemoveDefaultParent()
			cpusets.RemoveDefaultParent()
		})
		name := filepath.Base(s.Dir)
		var slices, parents []string
		for _, m := range mounts {
			if _, err := os.Stat(filepath.Join(m, "throttlebench", name)); err == nil {
				slices = append(slices, m)
			}
			if _, err := os.Stat(filepath.Join(m, "throttlebench")); err == nil {
				parents = append(parents, m)
			}
		}
		sort.Strings(want)
		sort.Strings(slices)
		sort.Strings(parents)
		assert.Equal(t, want, slices, "the hierarchies holding slice %s (cpuset %v)", name, withCpuset)
		assert.Equal(t, want, parents, "the hierarchies holding the default parent (cpuset %v)", withCpuset)

		require.NoError(t, s.Delete())
		hier.RemoveDefaultParent()
		cpusets.RemoveDefaultParent()
		// The slice is gone everywhere, and the default parent with it
		// unless another's slices are in it: go test runs other packages
		// beside this one whose tests make slices there too (a stress run
		// found the parent still there, holding one of theirs), and an
		// empty default parent is all RemoveDefaultParent may remove.
		for _, m := range mounts {
			assert.NoDirExists(t, filepath.Join(m, "throttlebench", name), "nothing of the slice left in %s", m)
			if others := subdirs(t, filepath.Join(m, "throttlebench")); len(others) == 0 {
				assert.NoDirExists(t, filepath.Join(m, "throttlebench"), "the empty default parent left in %s", m)
			}
		}
	}
}
