package runner

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/host"
)

// Fake counters: each call of a probe returns the next value.
func seq[T any](vals ...T) func() (T, error) {
	return func() (T, error) { v := vals[0]; vals = vals[1:]; return v, nil }
}

func TestBackgroundBetweenTwoReadings(t *testing.T) {
	t.Parallel()
	hostCPU := seq(host.CPUTimes{CPUs: 2, Idle: 10 * time.Second}, host.CPUTimes{CPUs: 2, Idle: 11 * time.Second})
	usage := seq(5*time.Second, 5*time.Second+800*time.Millisecond)
	process := seq(time.Second, time.Second+600*time.Millisecond)
	before := read(hostCPU, usage, process)
	after := read(hostCPU, usage, process)
	after.at = before.at.Add(time.Second) // the window, made exact

	bg := background(before, after)
	assert.Equal(t, time.Second, bg.Window)
	require.NotNil(t, bg.MachineBusy)
	assert.Equal(t, time.Second, *bg.MachineBusy, "2 CPUs for 1 s, 1 s of it idle")
	assert.Equal(t, 2*host.Tick, bg.BusyResolution)
	require.NotNil(t, bg.CgroupUsage)
	assert.Equal(t, 800*time.Millisecond, *bg.CgroupUsage)
	require.NotNil(t, bg.ProcessCPU)
	assert.Equal(t, 600*time.Millisecond, *bg.ProcessCPU)
}

// A probe that fails, or that is not there (a created slice has no usage
// of ours to compare), leaves its number unknown; it never fails the run.
func TestFailingProbesLeaveNumbersUnknown(t *testing.T) {
	t.Parallel()
	fail := func() (host.CPUTimes, error) { return host.CPUTimes{}, errors.New("no /proc") }
	before := read(fail, nil, func() (time.Duration, error) { return 0, errors.New("no clock") })
	after := read(fail, nil, seq(time.Second))
	bg := background(before, after)
	assert.Nil(t, bg.MachineBusy)
	assert.Nil(t, bg.CgroupUsage)
	assert.Nil(t, bg.ProcessCPU)

	// A counter that went backwards has no change to report.
	usage := seq(2*time.Second, time.Second)
	bg = background(read(fail, usage, nil), read(fail, usage, nil))
	assert.Nil(t, bg.CgroupUsage)
}
