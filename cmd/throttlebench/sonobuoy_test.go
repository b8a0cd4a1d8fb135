package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/collect"
	"github.com/throttlebench/throttlebench/internal/report"
)

// startPlugin runs throttlebench as a Sonobuoy plugin's container does, in
// a process of its own, and waits for its done file.
func startPlugin(t *testing.T, dir string, args ...string) (*exec.Cmd, *bytes.Buffer, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"run", "--cgroup", "current", "--sonobuoy-results", dir}, args...)...)
	cmd.Env = append(os.Environ(), asCLI+"=1", "THROTTLEBENCH_NODE=node-s")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(60 * time.Second)
	for {
		done, err := os.ReadFile(filepath.Join(dir, "done"))
		if err == nil {
			return cmd, &out, string(done)
		}
		require.True(t, time.Now().Before(deadline), "no done file after 60 s: %s", out.String())
		time.Sleep(20 * time.Millisecond)
	}
}

// The result, then the done file naming it; then the process stays (a
// DaemonSet would restart it and measure again) until it is stopped.
func TestSonobuoyResults(t *testing.T) {
	dir := t.TempDir()
	cmd, out, done := startPlugin(t, dir, "--batch", "2", "--iterations", "2")
	assert.Equal(t, filepath.Join(dir, "throttlebench.json"), done, "the done file holds the result's path, nothing else")
	data, err := os.ReadFile(done)
	require.NoError(t, err)
	reps, err := report.Load(bytes.NewReader(data))
	require.NoError(t, err)
	require.Len(t, reps, 1)
	assert.Equal(t, "node-s", reps[0].Host.Node)

	time.Sleep(200 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.Signal(0)), "still running after the done file")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "stopped once done: exit 0; %s", out.String())
	assert.Equal(t, string(data), out.String(), "the pod's log holds the result too")

	// What sonobuoy retrieve brings back of it, collected.
	var c collect.Collection
	assert.True(t, c.SonobuoyFile("plugins/throttlebench-x-c0/results/node-s/throttlebench.json", data))
	assert.Empty(t, c.Missing)
	assert.Len(t, c.Found, 1)
}

// A run that fails leaves an error result for its node, not nothing.
func TestSonobuoyResultsOfAFailedRun(t *testing.T) {
	dir := t.TempDir()
	cmd, out, done := startPlugin(t, dir, "--batch", "1000", "--timeout", "1ms")
	assert.Equal(t, filepath.Join(dir, "throttlebench-error.json"), done)
	data, err := os.ReadFile(done)
	require.NoError(t, err)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "stopped: exit 0, the error is in its file; %s", out.String())
	assert.Equal(t, "throttlebench: the run exceeded --timeout 1ms and was stopped; nothing left behind (written to "+done+")\n", out.String())

	var c collect.Collection
	c.SonobuoyFile("plugins/throttlebench-x-c0/results/node-s/throttlebench-error.json", data)
	require.Len(t, c.Missing, 1)
	assert.Contains(t, c.Missing[0].Reason, `an error result: "throttlebench: the run exceeded --timeout 1ms`)
}
