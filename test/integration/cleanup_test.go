//go:build linux

package integration

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startLongRun starts a run that would take minutes, and waits until its
// workload child sits in its slice.
func startLongRun(t *testing.T, parent string, extra ...string) (cmd *exec.Cmd, stderr *bytes.Buffer, slice string, child int) {
	t.Helper()
	args := append([]string{"run", "--cgroup", "create", "--parent", parent, "--cpus", "0.1", "--batch", "50", "--iterations", "1000"}, extra...)
	cmd = exec.Command(binary, jsonByDefault(args)...)
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	slice, child = waitForChild(t, parent)
	return cmd, stderr, slice, child
}

func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		t.Fatal("throttlebench did not exit")
		return -1
	}
}

// Ctrl-C and SIGTERM end the run with 128+signal; the child is gone and the
// slice removed.
func TestSignalsLeaveNothingBehind(t *testing.T) {
	hier := needRoot(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			parent := testParent(t, hier)
			cmd, stderr, slice, child := startLongRun(t, parent)
			require.NoError(t, cmd.Process.Signal(c.sig))
			assert.Equal(t, c.code, exitCode(t, cmd), stderr.String())
			assert.Contains(t, stderr.String(), "interrupted")
			assert.False(t, alive(child), "workload child %d survived", child)
			assert.NoDirExists(t, slice)
		})
	}
}

// A crash of the workload child fails the run (exit 1) and removes the slice.
func TestChildCrashLeavesNothingBehind(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	cmd, stderr, slice, child := startLongRun(t, parent)
	require.NoError(t, syscall.Kill(child, syscall.SIGKILL))
	assert.Equal(t, 1, exitCode(t, cmd), stderr.String())
	assert.Contains(t, stderr.String(), "workload process died")
	assert.NoDirExists(t, slice)
}

func TestTimeoutLeavesNothingBehind(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	cmd, stderr, slice, child := startLongRun(t, parent, "--timeout", "1s")
	assert.Equal(t, 1, exitCode(t, cmd), stderr.String())
	assert.Contains(t, stderr.String(), "--timeout 1s")
	assert.False(t, alive(child))
	assert.NoDirExists(t, slice)
}

// When the parent dies by SIGKILL it cannot clean up: its child dies with it
// (parent-death signal) and `cleanup` removes the orphaned slice.
func TestParentKilledThenCleanup(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	cmd, _, slice, child := startLongRun(t, parent)
	require.NoError(t, cmd.Process.Kill())
	cmd.Wait()
	waitGone(t, child, "workload child of a SIGKILLed parent")
	require.DirExists(t, slice, "nothing could have removed it yet")

	o := tb(t, "cleanup", "--parent", parent)
	assert.Equal(t, 0, o.code, o.stderr)
	assert.Contains(t, o.stdout, "removed "+slice)
	_, err := os.Stat(slice)
	assert.True(t, os.IsNotExist(err), "slice %s still exists", slice)
}
