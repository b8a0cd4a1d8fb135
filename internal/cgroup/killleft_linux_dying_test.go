//go:build linux

package cgroup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/host"
)

// A process killed a moment before (a SIGKILL pending, or exiting) is not
// one a command left behind; a live one is.
func TestKilledAlready(t *testing.T) {
	live := "4242 (sleep 301) S 1 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 5 2400000 200 18446744073709551615"
	status := host.ParseProcStatus([]byte("Name:\tsleep\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n"))
	assert.False(t, dyingFrom(live, status))
	assert.True(t, dyingFrom(live, host.ParseProcStatus([]byte("SigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n"))), "SIGKILL pending on the thread")
	assert.True(t, dyingFrom(live, host.ParseProcStatus([]byte("SigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\n"))), "SIGKILL pending on the group")
	assert.False(t, dyingFrom(live, host.ParseProcStatus([]byte("SigPnd:\t0000000000004000\nShdPnd:\t0000000000000000\n"))), "SIGTERM is no SIGKILL")
	exiting := "4242 (a) b) R 1 4242 4242 0 -1 4194564 100 0 0 0 0 0 0 0 20 0 1 0 5 2400000 200 18446744073709551615"
	assert.True(t, dyingFrom(exiting, status), "PF_EXITING, a command name with a parenthesis in it")
	assert.True(t, dyingFrom("4242 (sleep) Z 1 4242 4242 0 -1 4194560 0 0 0 0", status), "a zombie")
	assert.False(t, killedAlready("/", os.Getpid()), "this process lives")
	assert.True(t, killedAlready("/", 999999999), "gone")
}

// killedAlready reads below the injected root, not the machine's /proc.
func TestKilledAlreadyBelowRoot(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "proc", "999999998")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	live := "999999998 (sleep) S 1 2 3 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 5 2400000 200 18446744073709551615"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(live), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "status"), []byte("SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n"), 0o644))
	assert.False(t, killedAlready(root, 999999998), "alive in the fixture, though no such process runs here")
	zombie := "999999998 (sleep) Z 1 2 3 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 5 2400000 200 18446744073709551615"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(zombie), 0o644))
	assert.True(t, killedAlready(root, 999999998))
}
