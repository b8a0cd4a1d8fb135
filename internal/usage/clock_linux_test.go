//go:build linux

package usage

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

func openClock(t *testing.T) *PollClock {
	t.Helper()
	c, err := OpenClock()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	return c
}

func TestPollClockSleepsUntil(t *testing.T) {
	c := openClock(t)
	ctx := context.Background()
	for _, d := range []time.Duration{5 * time.Millisecond, 20 * time.Millisecond, time.Millisecond} {
		due := c.Now() + d
		require.NoError(t, c.SleepUntil(ctx, due))
		assert.GreaterOrEqual(t, c.Now(), due, "woke before the instant asked for")
	}
	// An instant that has passed returns at once: here, well before a
	// second that a wait would take.
	start := time.Now()
	require.NoError(t, c.SleepUntil(ctx, c.Now()-time.Second))
	assert.Less(t, time.Since(start), time.Second)
}

func TestPollClockContext(t *testing.T) {
	c := openClock(t)

	t.Run("ended before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.ErrorIs(t, c.SleepUntil(ctx, c.Now()+time.Hour), context.Canceled)
	})
	t.Run("ends during a wait", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(10*time.Millisecond, cancel)
		assert.ErrorIs(t, c.SleepUntil(ctx, c.Now()+time.Hour), context.Canceled)
	})
	t.Run("a later context waits again", func(t *testing.T) {
		// The deadline that ended the wait above must not end this one.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		due := c.Now() + 5*time.Millisecond
		require.NoError(t, c.SleepUntil(ctx, due))
		assert.GreaterOrEqual(t, c.Now(), due)
		require.NoError(t, c.SleepUntil(context.Background(), c.Now()+time.Millisecond))
	})
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		assert.ErrorIs(t, c.SleepUntil(ctx, c.Now()+time.Hour), context.DeadlineExceeded)
	})
}

// A wait allocates nothing once the context is watched: the sampler makes
// no garbage between readings.
func TestPollClockWaitsWithoutAllocating(t *testing.T) {
	c := openClock(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, c.SleepUntil(ctx, c.Now()+time.Millisecond))
	allocs := testing.AllocsPerRun(20, func() {
		if err := c.SleepUntil(ctx, c.Now()+200*time.Microsecond); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

// The sampler on the real clock and a real (if ordinary) counter file held
// open: every instant read once, none missed on an idle machine... or, on
// a busy one, counted as missed.
func TestSamplerOnPollClock(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cpuacct.usage"), []byte("1000\n"), 0o644))
	counter, err := cgroup.Cgroup{Hierarchy: cgroup.Hierarchy{Version: 1, MountPoint: dir, Root: filepath.Dir(dir)}, Dir: dir}.OpenUsage() // a fixture's (counterFile)
	require.NoError(t, err)
	defer counter.Close()
	c := openClock(t)
	rec := Sampler{Counter: counter, Clock: c, Interval: 5 * time.Millisecond, Duration: 50 * time.Millisecond}.Run(context.Background())
	require.NoError(t, rec.Err)
	assert.False(t, rec.Interrupted)
	assert.Equal(t, 11, len(rec.Trace.Samples)+rec.Missed, "instants 0, 5, …, 50 ms: read or skipped")
	for i, l := range rec.Late {
		assert.GreaterOrEqual(t, l, time.Duration(0), "reading %d before its instant", i)
	}
	last := rec.Trace.Samples[len(rec.Trace.Samples)-1].At
	assert.GreaterOrEqual(t, last, 50*time.Millisecond, "the last reading is at or after its instant")
}
