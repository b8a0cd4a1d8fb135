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

// pluginProcess is throttlebench run as a Sonobuoy plugin's container
// runs it, in a process of its own.
type pluginProcess struct {
	cmd  *exec.Cmd
	out  *bytes.Buffer // its stdout and stderr: read only once it has exited
	exit chan struct{} // closed when it has exited, err its Wait's
	err  error
}

// startPlugin starts the plugin and waits for its done file, failing at
// once if the process exits first.
func startPlugin(t *testing.T, dir string, args ...string) (*pluginProcess, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"run", "--cgroup", "current", "--sonobuoy-results", dir}, args...)...)
	cmd.Env = append(os.Environ(), asCLI+"=1", "THROTTLEBENCH_NODE=node-s")
	p := &pluginProcess{cmd: cmd, out: &bytes.Buffer{}, exit: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	require.NoError(t, cmd.Start())
	go func() { p.err = cmd.Wait(); close(p.exit) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-p.exit })
	timeout := time.After(60 * time.Second)
	for {
		if done, err := os.ReadFile(filepath.Join(dir, "done")); err == nil {
			return p, string(done)
		}
		select {
		case <-p.exit:
			t.Fatalf("exited (%v) before writing its done file: %s", p.err, p.out)
		case <-timeout:
			t.Fatalf("no done file after 60 s")
		case <-time.After(20 * time.Millisecond): // the done file has no event to wait on
		}
	}
}

// stop sends SIGTERM and waits for the process to exit, failing if it
// has not within 10 s; it returns Wait's error.
func (p *pluginProcess) stop(t *testing.T) error {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-p.exit:
		return p.err
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exit
		t.Fatalf("still running 10 s after SIGTERM: %s", p.out)
		return nil
	}
}

// The result, then the done file naming it; then the process stays (a
// DaemonSet would restart it and measure again) until it is stopped.
func TestSonobuoyResults(t *testing.T) {
	dir := t.TempDir()
	p, done := startPlugin(t, dir, "--batch", "2", "--iterations", "2")
	assert.Equal(t, filepath.Join(dir, "throttlebench.json"), done, "the done file holds the result's path, nothing else")
	data, err := os.ReadFile(done)
	require.NoError(t, err)
	reps, err := report.Load(bytes.NewReader(data))
	require.NoError(t, err)
	require.Len(t, reps, 1)
	assert.Equal(t, "node-s", reps[0].Host.Node)

	// That it stays is that it does not exit: watched for a while, since
	// staying has no event of its own; an exit ends the watch at once.
	select {
	case <-p.exit:
		t.Fatalf("exited on its own after the done file (%v): %s", p.err, p.out)
	case <-time.After(200 * time.Millisecond):
	}
	require.NoError(t, p.stop(t), "stopped once done: exit 0; %s", p.out)
	assert.Equal(t, string(data), p.out.String(), "the pod's log holds the result too")

	// What sonobuoy retrieve brings back of it, collected.
	var c collect.Collection
	assert.True(t, c.SonobuoyFile("plugins/throttlebench-x-c0/results/node-s/throttlebench.json", data))
	assert.Empty(t, c.Missing)
	assert.Len(t, c.Found, 1)
}

// A run that fails leaves an error result for its node, not nothing.
func TestSonobuoyResultsOfAFailedRun(t *testing.T) {
	dir := t.TempDir()
	p, done := startPlugin(t, dir, "--batch", "1000", "--timeout", "1ms")
	assert.Equal(t, filepath.Join(dir, "throttlebench-error.json"), done)
	data, err := os.ReadFile(done)
	require.NoError(t, err)
	require.NoError(t, p.stop(t), "stopped: exit 0, the error is in its file; %s", p.out)
	assert.Equal(t, "throttlebench: the run exceeded --timeout 1ms and was stopped; nothing left behind (written to "+done+")\n", p.out.String())

	var c collect.Collection
	c.SonobuoyFile("plugins/throttlebench-x-c0/results/node-s/throttlebench-error.json", data)
	require.Len(t, c.Missing, 1)
	assert.Contains(t, c.Missing[0].Reason, `an error result: "throttlebench: the run exceeded --timeout 1ms`)
}
