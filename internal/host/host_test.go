package host

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/two-cpus/proc/stat is this project's 2-CPU machine, copied.
func TestReadStat(t *testing.T) {
	got, err := ReadStat("testdata/two-cpus")
	require.NoError(t, err)
	assert.Equal(t, 2, got.CPUs)
	assert.Equal(t, (75140+2260)*Tick, got.Idle, "idle + iowait")
}

func TestParseStat(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       CPUTimes
		err        bool
	}{
		{"idle and iowait of the aggregate line", "cpu  10 0 5 700 30 0 0 0 0 0\ncpu0 5 0 2 350 15 0 0 0 0 0\ncpu1 5 0 3 350 15 0 0 0 0 0\n",
			CPUTimes{CPUs: 2, Idle: 7300 * time.Millisecond}, false},
		// Kernels before 2.6.11 stop after iowait; every field after it is
		// newer still.
		{"old kernel, five fields", "cpu 1 2 3 400 5\ncpu0 1 2 3 400 5\n", CPUTimes{CPUs: 1, Idle: 4050 * time.Millisecond}, false},
		{"no cpu line", "cpu0 1 2 3 4 5\n", CPUTimes{}, true},
		{"no cpuN line", "cpu 1 2 3 4 5\n", CPUTimes{}, true},
		{"too few fields", "cpu 1 2 3 4\ncpu0 1 2 3 4\n", CPUTimes{}, true},
		{"not a number", "cpu 1 2 3 idle 5\ncpu0 1 2 3 4 5\n", CPUTimes{}, true},
		{"negative", "cpu 1 2 3 -4 5\ncpu0 1 2 3 4 5\n", CPUTimes{}, true},
		{"empty", "", CPUTimes{}, true},
		// Found by FuzzParseStat: ticks beyond a time.Duration wrapped around.
		{"idle beyond a Duration", "cpu 0 0 0 922337203686 0\ncpu0 0 0 0 0 0\n", CPUTimes{}, true},
		{"idle + iowait beyond a Duration", "cpu 0 0 0 922337203685 922337203685\ncpu0 0 0 0 0 0\n", CPUTimes{}, true},
		{"the most a Duration holds", "cpu 0 0 0 922337203685 0\ncpu0 0 0 0 0 0\n", CPUTimes{CPUs: 1, Idle: 922337203685 * Tick}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseStat([]byte(c.data))
			if c.err {
				assert.ErrorIs(t, err, ErrParse)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestBusy(t *testing.T) {
	before := CPUTimes{CPUs: 2, Idle: 10 * time.Second}
	// 2 CPUs for 1 s, 1.5 s of it idle: 0.5 s busy.
	got, ok := Busy(before, CPUTimes{CPUs: 2, Idle: 11500 * time.Millisecond}, time.Second)
	assert.True(t, ok)
	assert.Equal(t, 500*time.Millisecond, got)

	got, ok = Busy(before, CPUTimes{CPUs: 2, Idle: 12010 * time.Millisecond}, time.Second)
	assert.True(t, ok, "idle rounded up past the wall time: nothing was busy")
	assert.Equal(t, time.Duration(0), got)

	_, ok = Busy(before, CPUTimes{CPUs: 3, Idle: 11 * time.Second}, time.Second)
	assert.False(t, ok, "a CPU came online in between")
	_, ok = Busy(before, CPUTimes{CPUs: 2, Idle: 9 * time.Second}, time.Second)
	assert.False(t, ok, "idle went backwards")
	_, ok = Busy(before, before, 0)
	assert.False(t, ok, "no time passed")
}

func TestProcessCPUAdvances(t *testing.T) {
	c0, err := ProcessCPU()
	require.NoError(t, err)
	for deadline := time.Now().Add(20 * time.Millisecond); time.Now().Before(deadline); {
	}
	c1, err := ProcessCPU()
	require.NoError(t, err)
	assert.Greater(t, c1, c0)
}
