//go:build linux

package childproto

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/testenv"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
)

// A command's child, its reply sent, waits for its parent to end it (the
// parent empties the slice first); if the parent goes instead, killed
// between the reply and its KillLeft (TestCommandSoak's SIGKILL once left
// six daemons and the slice so), the child kills what the command left in
// the slice and returns. The parent's going is seen two ways: its control
// pipe closes, or its death signal ends ctx. On the real kernel, in a
// cgroup of the test's own: the command leaves a daemon (a session of its
// own, which no process group kill reaches) in it.
func TestOrphanedCommandChildEmptiesItsSlice(t *testing.T) {
	for _, how := range []string{"pipe closed", "death signal"} {
		t.Run(strings.ReplaceAll(how, " ", "_"), func(t *testing.T) {
			dir := testCgroup(t)
			pidFile := filepath.Join(t.TempDir(), "daemon.pid")
			// The command waits for its daemon to say it is in place: its
			// process group is killed when it ends, and the daemon with
			// it while still in that group.
			script := fmt.Sprintf("setsid sh -c 'echo $$ > %[1]s/cgroup.procs && echo $$ > %[2]s.tmp && mv %[2]s.tmp %[2]s && exec sleep 60' </dev/null >/dev/null 2>&1 & "+
				"while [ ! -s %[2]s ]; do sleep 0.01; done", dir, pidFile)
			raw, err := json.Marshal([]string{"sh", "-c", script})
			require.NoError(t, err)
			cfg := runspec.ClosedLoop{Workload: "command", Params: report.Params{}.With("command", json.RawMessage(raw)),
				Batch: 1, Iterations: 1, Warmup: 0, Workers: 1, GOMAXPROCS: 1, StatDir: dir}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := newSession(t, serve(ctx))
			require.NoError(t, s.parent.Configure(cfg))
			require.NoError(t, s.parent.Go())
			require.NoError(t, s.parent.WaitWarm(ctx))
			require.NoError(t, s.parent.Measure())
			_, err = s.parent.Wait(ctx)
			require.NoError(t, err)

			var daemon int
			require.Eventually(t, func() bool {
				b, err := os.ReadFile(pidFile)
				daemon, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return err == nil && daemon > 0
			}, 5*time.Second, 10*time.Millisecond, "the command's daemon never started")
			require.Contains(t, procsIn(t, dir), daemon, "the daemon is in the slice")

			// The parent still there: the child waits, the daemon lives.
			select {
			case err := <-s.childEnd:
				t.Fatalf("the child returned (%v) while its parent was there", err)
			case <-time.After(300 * time.Millisecond):
			}
			assert.True(t, running(daemon), "nothing killed while the parent is there")

			if how == "pipe closed" {
				s.toChild.Close()
			} else {
				cancel()
			}
			assert.NoError(t, s.end(t))
			assert.Empty(t, procsIn(t, dir), "the slice emptied")
			assert.Eventually(t, func() bool { return !running(daemon) }, 5*time.Second, 10*time.Millisecond,
				"daemon %d still running", daemon)
		})
	}
}

// testCgroup makes a cgroup of the cpu hierarchy for one test and removes
// it at the end, after killing what is left in it (which only a failing
// test leaves).
func testCgroup(t *testing.T) string {
	t.Helper()
	testenv.NeedRoot(t, "to create cgroups (run as root; CI runs it so, with CI=true)")
	hier, err := cgroup.Host{Root: "/"}.CPUHierarchy(0)
	require.NoError(t, err)
	dir := filepath.Join(hier.MountPoint, fmt.Sprintf("tb-childproto-test-%d", os.Getpid()))
	require.NoError(t, os.Mkdir(dir, 0o755))
	t.Cleanup(func() {
		cgroup.KillIn(dir, 0)
		assert.NoError(t, os.Remove(dir))
	})
	return dir
}

func procsIn(t *testing.T, dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	require.NoError(t, err)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	return pids
}

// running is whether pid is a live process, not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}
