//go:build linux

package host

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPIDCPUOfThisProcessMatchesItsOwnClock(t *testing.T) {
	// Spend 30 ms of CPU, by the process's own clock: a wall-clock spin
	// got less than 20 ms of CPU on a host loaded 12–16 deep.
	var a time.Duration
	for deadline := time.Now().Add(time.Minute); a < 30*time.Millisecond; {
		var err error
		a, err = ProcessCPU()
		require.NoError(t, err)
		require.True(t, time.Now().Before(deadline), "30 ms of CPU not spent in a minute: %v", a)
	}
	b, err := PIDCPU(os.Getpid())
	require.NoError(t, err)
	c, err := ProcessCPU()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, b, a)
	assert.LessOrEqual(t, b, c)
	assert.GreaterOrEqual(t, b, 30*time.Millisecond)
}

func TestPIDCPUOfAnotherProcess(t *testing.T) {
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Read until the busy shell has used 10 ms, however loaded the machine
	// is: what is asserted is that its CPU time is seen growing, not how
	// fast it grows.
	var d time.Duration
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var err error
		d, err = PIDCPU(cmd.Process.Pid)
		require.NoError(t, err)
		if d > 10*time.Millisecond {
			break
		}
	}
	assert.Greater(t, d, 10*time.Millisecond, "a busy shell used CPU")
	assert.Less(t, d, 10*time.Second)
}

func TestPIDCPUOfNoProcess(t *testing.T) {
	for _, pid := range []int{1 << 23, 0, -1, 1 << 30} { // above pid_max, the caller's, none
		_, err := PIDCPU(pid)
		assert.Error(t, err, "pid %d", pid)
	}
}
