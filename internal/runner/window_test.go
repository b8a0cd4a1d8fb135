package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// statGroup is a Group whose cpu.stat counts the reads, in order.
type statGroup struct {
	Group
	log   *[]string
	reads []uint64
}

func (g *statGroup) Stat() (cgroup.CPUStat, error) {
	*g.log = append(*g.log, "stat")
	n := g.reads[0]
	g.reads = g.reads[1:]
	return cgroup.CPUStat{NrPeriods: &n}, nil
}

// The window frames the measured part alone: the counters are read after
// open and before the run's end, the change is theirs, and the
// workload's CPU time at the end comes from the result where the engine
// says so.
func TestRunWindowFramesTheMeasuredPart(t *testing.T) {
	t.Parallel()
	var log []string
	g := &statGroup{log: &log, reads: []uint64{10, 25}}
	cpu := time.Duration(0)
	w := Window{Group: g,
		HostCPU: func() (host.CPUTimes, error) { log = append(log, "host"); return host.CPUTimes{}, nil },
		CPU:     func() (time.Duration, error) { return cpu, nil },
		Clock:   func() usage.Clock { return stalledClock{} }}
	res, m, err := RunWindow(context.Background(), w, func(open func() error) (int, error) {
		log = append(log, "warm-up")
		require.NoError(t, open())
		log = append(log, "run")
		time.Sleep(time.Millisecond)
		return 7, nil
	}, func(res int) (time.Duration, error) { return time.Duration(res) * time.Second, nil })
	require.NoError(t, err)
	assert.Equal(t, 7, res)
	assert.Equal(t, []string{"warm-up", "stat", "host", "run", "host", "stat"}, log)
	require.NotNil(t, m.Stat.NrPeriods)
	assert.Equal(t, uint64(15), *m.Stat.NrPeriods)
	require.NotNil(t, m.CPU)
	assert.Equal(t, 7*time.Second, *m.CPU)
	assert.GreaterOrEqual(t, m.Background.Window, time.Millisecond, "the readings frame the run")
	assert.GreaterOrEqual(t, m.Elapsed, time.Millisecond)
}

// A run that fails, or never opens its window, measures nothing.
func TestRunWindowWithoutAMeasuredPart(t *testing.T) {
	t.Parallel()
	var log []string
	g := &statGroup{log: &log, reads: []uint64{1, 2}}
	boom := errors.New("boom")
	_, _, err := RunWindow(context.Background(), Window{Group: g}, func(open func() error) (int, error) {
		require.NoError(t, open())
		return 0, boom
	}, nil)
	require.ErrorIs(t, err, boom)
	assert.Equal(t, []string{"stat"}, log, "no second read after a failed run")

	_, _, err = RunWindow(context.Background(), Window{}, func(func() error) (int, error) { return 0, nil }, nil)
	require.Error(t, err, "a run that never began its measured part")
}
