package usage

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// scripted is a clock driven by a script: each SleepUntil wakes up late by
// the next lateness, and before returning writes the counter file's next
// value, as the kernel would have moved it by then. With no step left it
// acts as a cancelled context.
type scripted struct {
	t     *testing.T
	file  string
	now   time.Duration
	steps []step
	woken []time.Duration // the instants asked for
}

type step struct {
	late  time.Duration
	usage time.Duration // the counter's value from then on
	gone  bool          // the cgroup is removed instead
}

func (c *scripted) Now() time.Duration { return c.now }

func (c *scripted) SleepUntil(ctx context.Context, t time.Duration) error {
	if len(c.steps) == 0 {
		return context.Canceled
	}
	s := c.steps[0]
	c.steps = c.steps[1:]
	c.woken = append(c.woken, t)
	c.now = max(c.now, t+s.late)
	if s.gone {
		require.NoError(c.t, os.Remove(c.file))
	} else {
		require.NoError(c.t, os.WriteFile(c.file, []byte(strconv.FormatInt(int64(s.usage), 10)+"\n"), 0o644))
	}
	return nil
}

// counterFile is a v1 cpuacct cgroup in a temporary directory, read through
// the same code as a real one: the directory is a fixture's mount point,
// below the fixture's root (Hierarchy.Root), and its counter is read
// beneath it, as on cgroupfs.
func counterFile(t *testing.T) (cgroup.Cgroup, string) {
	dir := t.TempDir()
	return cgroup.Cgroup{Hierarchy: cgroup.Hierarchy{Version: 1, MountPoint: dir, Root: filepath.Dir(dir)}, Dir: dir}, filepath.Join(dir, "cpuacct.usage")
}

func TestSamplerExact(t *testing.T) {
	cg, file := counterFile(t)
	const start = 5 * time.Second
	clk := &scripted{t: t, file: file, now: start, steps: []step{
		{0, 10 * time.Second, false},
		{0, 10*time.Second + 100*time.Millisecond, false},
		{20 * time.Millisecond, 10*time.Second + 340*time.Millisecond, false}, // late 20 ms
		{0, 10*time.Second + 400*time.Millisecond, false},                     // back on the grid
		{10 * time.Millisecond, 10*time.Second + 650*time.Millisecond, false}, // the last, late 10 ms
	}}
	cpu := []time.Duration{time.Second, time.Second + 3*time.Millisecond}
	s := Sampler{Counter: cg, Clock: clk, Interval: ms100, Duration: 400 * time.Millisecond,
		CPU: func() (time.Duration, error) { c := cpu[0]; cpu = cpu[1:]; return c, nil }}
	rec := s.Run(context.Background())

	require.NoError(t, rec.Err)
	assert.False(t, rec.Interrupted)
	assert.Equal(t, []time.Duration{start, start + 100*time.Millisecond, start + 200*time.Millisecond, start + 300*time.Millisecond, start + 400*time.Millisecond}, clk.woken,
		"absolute instants: the late third reading does not delay the fourth")
	assert.Equal(t, []time.Duration{0, 0, 20 * time.Millisecond, 0, 10 * time.Millisecond}, rec.Late)
	assert.Equal(t, 0, rec.Missed)
	// Spans 100, 120, 80, 110 ms; used 100, 240, 60, 250 ms.
	assert.Equal(t, []float64{1, 2, 0.75, 250.0 / 110}, rec.Trace.CPUs())
	assert.Equal(t, 3*time.Millisecond, rec.CPU)
	assert.True(t, rec.CPUKnown)

	f := Build(rec, Meta{Limit: 1.5, Target: 0.25})
	assert.Equal(t, []float64{100, 220, 300, 410}, f.TMs)
	assert.Equal(t, 410.0, f.DurationMs)
	assert.Equal(t, 0.5, *f.Summary.Interval.AboveLimitFraction)
	assert.Nil(t, f.Summary.Coarse, "no whole second sampled")
	assert.Equal(t, 2.0, f.Advice.LimitCPUs, "one of four may be above: the second largest")
	assert.Equal(t, 1.5, f.Advice.BurstLimitCPUs)
	// Deficits against 1.5 CPUs: 0, 240−180 = 60, 60+60−120 = 0, 250−165 = 85.
	assert.InDelta(t, 85.0, f.Advice.BurstMs, 1e-6)
	assert.InDelta(t, 3.0/410, *f.Sampler.CPUFraction, 1e-12)
	assert.Equal(t, 20000.0, f.Sampler.LateUs.Max)
	assert.Equal(t, 6000.0, f.Sampler.LateUs.Mean)
}

func TestSamplerSkipsPassedInstants(t *testing.T) {
	cg, file := counterFile(t)
	clk := &scripted{t: t, file: file, steps: []step{
		{0, 0, false},
		{250 * time.Millisecond, 350 * time.Millisecond, false}, // woke at 350 ms: 200 and 300 have passed
		{0, 400 * time.Millisecond, false},
		{0, 500 * time.Millisecond, false},
	}}
	rec := Sampler{Counter: cg, Clock: clk, Interval: ms100, Duration: 500 * time.Millisecond}.Run(context.Background())
	require.NoError(t, rec.Err)
	assert.Equal(t, []time.Duration{0, 100 * time.Millisecond, 400 * time.Millisecond, 500 * time.Millisecond}, clk.woken)
	assert.Equal(t, 2, rec.Missed)
	assert.Equal(t, []float64{350.0 / 350, 1, 1}, rec.Trace.CPUs())
	assert.False(t, rec.CPUKnown)
}

func TestSamplerStops(t *testing.T) {
	t.Run("interrupted keeps what it has", func(t *testing.T) {
		cg, file := counterFile(t)
		clk := &scripted{t: t, file: file, steps: []step{{0, 0, false}, {0, 50 * time.Millisecond, false}, {0, 150 * time.Millisecond, false}}}
		rec := Sampler{Counter: cg, Clock: clk, Interval: ms100}.Run(context.Background())
		require.NoError(t, rec.Err)
		assert.True(t, rec.Interrupted)
		assert.Equal(t, []float64{0.5, 1}, rec.Trace.CPUs())
	})
	t.Run("counter went backwards", func(t *testing.T) {
		cg, file := counterFile(t)
		clk := &scripted{t: t, file: file, steps: []step{{0, time.Second, false}, {0, 2 * time.Second, false}, {0, time.Millisecond, false}}}
		rec := Sampler{Counter: cg, Clock: clk, Interval: ms100, Duration: time.Second}.Run(context.Background())
		assert.ErrorIs(t, rec.Err, ErrBackwards)
		assert.False(t, rec.Interrupted)
		assert.Equal(t, []float64{10}, rec.Trace.CPUs())
	})
	t.Run("cgroup removed", func(t *testing.T) {
		cg, file := counterFile(t)
		clk := &scripted{t: t, file: file, steps: []step{{0, 0, false}, {0, 0, true}}}
		rec := Sampler{Counter: cg, Clock: clk, Interval: ms100, Duration: time.Second}.Run(context.Background())
		assert.ErrorIs(t, rec.Err, cgroup.ErrNoUsage)
		assert.Equal(t, 1, len(rec.Trace.Samples))
	})
	t.Run("context cancelled on the real clock", func(t *testing.T) {
		cg, file := counterFile(t)
		require.NoError(t, os.WriteFile(file, []byte("7\n"), 0o644))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rec := Sampler{Counter: cg, Clock: NewClock(), Interval: time.Hour}.Run(ctx)
		assert.True(t, rec.Interrupted)
		assert.Empty(t, rec.Trace.Samples)
	})
}
