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
	end := time.Now().Add(30 * time.Millisecond)
	for time.Now().Before(end) { // spend some CPU
	}
	a, err := ProcessCPU()
	require.NoError(t, err)
	b, err := PIDCPU(os.Getpid())
	require.NoError(t, err)
	c, err := ProcessCPU()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, b, a)
	assert.LessOrEqual(t, b, c)
	assert.Greater(t, b, 20*time.Millisecond)
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
