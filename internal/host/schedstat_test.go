//go:build linux

package host

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSchedStat(t *testing.T) {
	s, err := ParseSchedStat([]byte("789529881 317790923 98\n"))
	require.NoError(t, err)
	assert.Equal(t, SchedStat{OnCPU: 789529881, RunDelay: 317790923}, s)
	for _, bad := range []string{"", "12", "a 1 2", "1 -2 3"} {
		_, err := ParseSchedStat([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// A thread that spins has run time in its schedstat, and a thread that
// is gone has none to read.
func TestReadSchedStatOfThisThread(t *testing.T) {
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		t.Skip("the kernel keeps no schedstat (CONFIG_SCHED_INFO off)")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := gettid()
	before, err := ReadSchedStat("", tid)
	require.NoError(t, err)
	for end := time.Now().Add(20 * time.Millisecond); time.Now().Before(end); {
	}
	after, err := ReadSchedStat("", tid)
	require.NoError(t, err)
	assert.Greater(t, after.OnCPU, before.OnCPU)
	_, err = ReadSchedStat("", 1<<30)
	assert.Error(t, err)
}
