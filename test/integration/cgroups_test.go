//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// makeCgroup creates dir as a cgroup with quota/period in µs (quota -1 =
// unlimited), as an administrator would by hand: not through the code under
// test.
func makeCgroup(t *testing.T, hier cgroup.Hierarchy, dir string, quotaUs, periodUs int64) {
	t.Helper()
	if hier.Version == 2 {
		// The cpu controller must be enabled in every ancestor for cpu.max to exist.
		rel := strings.TrimPrefix(filepath.Dir(dir), hier.MountPoint)
		p := hier.MountPoint
		for _, part := range append([]string{""}, strings.Split(strings.Trim(rel, "/"), "/")...) {
			p = filepath.Join(p, part)
			writeFile(t, filepath.Join(p, "cgroup.subtree_control"), "+cpu")
		}
	}
	require.NoError(t, os.Mkdir(dir, 0o755))
	t.Cleanup(func() { killCgroup(dir); os.Remove(dir) })
	if hier.Version == 1 {
		writeFile(t, filepath.Join(dir, "cpu.cfs_period_us"), strconv.FormatInt(periodUs, 10))
		writeFile(t, filepath.Join(dir, "cpu.cfs_quota_us"), strconv.FormatInt(quotaUs, 10))
		return
	}
	q := "max"
	if quotaUs > 0 {
		q = strconv.FormatInt(quotaUs, 10)
	}
	writeFile(t, filepath.Join(dir, "cpu.max"), q+" "+strconv.FormatInt(periodUs, 10))
}

func writeFile(t *testing.T, path, v string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(v), 0), "write %q to %s", v, path)
}

// procsIn lists the PIDs in a cgroup.
func procsIn(dir string) []int {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

func killCgroup(dir string) {
	for _, p := range procsIn(dir) {
		syscall.Kill(p, syscall.SIGKILL)
	}
	for i := 0; i < 100 && len(procsIn(dir)) > 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
}

// alive says whether a process exists (and is not a zombie awaiting its parent).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

// waitForChild waits until a slice under parent holds a process, and returns
// the slice and the workload child's PID.
func waitForChild(t *testing.T, parent string) (string, int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, d := range subdirs(t, parent) {
			if pids := procsIn(d); len(pids) > 0 {
				return d, pids[0]
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no workload process appeared in a slice under %s", parent)
	return "", 0
}

// waitGone waits for pid to exit: the event a test needs before it looks
// at what the process left. A minute is a deadline for a hang, not a bound
// on how long an exit may take on a busy machine.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); alive(pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still alive a minute later", what, pid)
		}
	}
}
