package waits

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
)

// fakeThreads is a cgroup's threads whose counters a test sets between
// samples.
type fakeThreads struct {
	stats    map[int]host.SchedStat
	pressure cgroup.Pressure
}

func (f *fakeThreads) readers() *Readers {
	return &Readers{
		Threads: func() ([]int, error) {
			var tids []int
			for tid := range f.stats {
				tids = append(tids, tid)
			}
			return tids, nil
		},
		SchedStat: func(tid int) (host.SchedStat, error) {
			s, ok := f.stats[tid]
			if !ok {
				return host.SchedStat{}, errors.New("gone")
			}
			return s, nil
		},
		Pressure: func() (cgroup.Pressure, bool, error) { return f.pressure, true, nil },
	}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// A thread there throughout counts its change; one born in the window its
// whole life; one that exits, up to its last sample; a TID reused with
// smaller counters is left out rather than counted negative.
func TestWaitTrackerCountsEachThreadsWindow(t *testing.T) {
	t.Parallel()
	f := &fakeThreads{stats: map[int]host.SchedStat{
		10: {OnCPU: ms(1000), RunDelay: ms(500)},
		11: {OnCPU: ms(50), RunDelay: ms(40)},
		12: {OnCPU: ms(900), RunDelay: ms(900)},
	}, pressure: cgroup.Pressure{Some: ms(100), Full: ms(10), FullOK: true}}
	tr := NewTracker(f.readers())
	tr.Open()
	f.stats[10] = host.SchedStat{OnCPU: ms(1100), RunDelay: ms(520)}
	f.stats[11] = host.SchedStat{OnCPU: ms(70), RunDelay: ms(45)}
	f.stats[13] = host.SchedStat{OnCPU: ms(30), RunDelay: ms(7)} // born
	f.stats[12] = host.SchedStat{OnCPU: ms(1), RunDelay: ms(1)}  // exited, TID reused
	tr.sample()
	delete(f.stats, 11) // exits after the sample
	f.stats[10] = host.SchedStat{OnCPU: ms(1200), RunDelay: ms(530)}
	f.pressure = cgroup.Pressure{Some: ms(160), Full: ms(12), FullOK: true}
	w := tr.Close()
	require.NotNil(t, w)
	assert.Equal(t, 4, w.Threads)
	assert.Equal(t, ms(200+20+30), w.OnCPU)
	assert.Equal(t, ms(30+5+7), w.RunDelay)
	require.NotNil(t, w.PressureSome)
	assert.Equal(t, ms(60), *w.PressureSome)
	require.NotNil(t, w.PressureFull)
	assert.Equal(t, ms(2), *w.PressureFull)
	assert.Positive(t, w.PressureWindow, "the time between the two readings")
}

// The pressure's window is the time between its two readings: the
// growth's share of it is the share of the window the cgroup was under
// pressure. Full is left out where the kernel keeps some alone (before
// 5.13); both where the kernel keeps none (v1, PSI off), or where a
// total went down (the cgroup made anew).
func TestWaitTrackerPressure(t *testing.T) {
	t.Parallel()
	threads := map[int]host.SchedStat{10: {OnCPU: ms(1), RunDelay: ms(1)}}
	t.Run("window", func(t *testing.T) {
		t.Parallel()
		f := &fakeThreads{stats: threads, pressure: cgroup.Pressure{Some: ms(100), Full: ms(10), FullOK: true}}
		tr := NewTracker(f.readers())
		before := time.Now()
		tr.Open()
		time.Sleep(20 * time.Millisecond)
		f.pressure = cgroup.Pressure{Some: ms(110), Full: ms(15), FullOK: true}
		w := tr.Close()
		elapsed := time.Since(before)
		require.NotNil(t, w)
		assert.GreaterOrEqual(t, w.PressureWindow, 20*time.Millisecond)
		assert.LessOrEqual(t, w.PressureWindow, elapsed)
	})
	t.Run("some alone", func(t *testing.T) {
		t.Parallel()
		f := &fakeThreads{stats: threads, pressure: cgroup.Pressure{Some: ms(100)}}
		tr := NewTracker(f.readers())
		tr.Open()
		f.pressure = cgroup.Pressure{Some: ms(130)}
		w := tr.Close()
		require.NotNil(t, w)
		require.NotNil(t, w.PressureSome)
		assert.Equal(t, ms(30), *w.PressureSome)
		assert.Nil(t, w.PressureFull, "no full line: not known, not 0")
	})
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		r := (&fakeThreads{stats: threads}).readers()
		r.Pressure = func() (cgroup.Pressure, bool, error) { return cgroup.Pressure{}, false, nil }
		tr := NewTracker(r)
		tr.Open()
		w := tr.Close()
		require.NotNil(t, w, "the threads' waits are still read")
		assert.Nil(t, w.PressureSome)
		assert.Nil(t, w.PressureFull)
	})
	t.Run("went down", func(t *testing.T) {
		t.Parallel()
		f := &fakeThreads{stats: threads, pressure: cgroup.Pressure{Some: ms(100), Full: ms(10), FullOK: true}}
		tr := NewTracker(f.readers())
		tr.Open()
		f.pressure = cgroup.Pressure{Some: ms(5), Full: ms(1), FullOK: true}
		w := tr.Close()
		require.NotNil(t, w)
		assert.Nil(t, w.PressureSome)
		assert.Nil(t, w.PressureFull)
	})
}

// No thread list read: no waits (not zero waits); no tracker: nothing.
func TestWaitTrackerWithoutThreads(t *testing.T) {
	t.Parallel()
	tr := NewTracker(&Readers{Threads: func() ([]int, error) { return nil, errors.New("no cgroup") }})
	tr.Open()
	assert.Nil(t, tr.Close())
	var none *Tracker = NewTracker(nil)
	none.Open()
	none.Every()()
	assert.Nil(t, none.Close())
}

// The quota's hold is taken apart thread by thread between samples: in
// an interval a thread is held at most the cgroup's throttled time over
// it, and what its run delay grew beyond that is its wait. Four workers
// held together are not three holds of waiting; a sample that could not
// read the throttled time leaves no split at all.
func TestWaitTrackerTakesTheHoldApartPerThread(t *testing.T) {
	t.Parallel()
	f := &fakeThreads{stats: map[int]host.SchedStat{
		1: {RunDelay: ms(100)}, 2: {RunDelay: ms(100)}, 3: {RunDelay: ms(100)}, 4: {RunDelay: ms(100)},
	}}
	throttled, ok := ms(1000), true
	w := f.readers()
	w.Throttled = func() (time.Duration, bool, error) { return throttled, ok, nil }
	tr := NewTracker(w)
	tr.Open()
	// 50 ms throttled: all four held throughout, one of them also waited
	// 30 ms for a CPU.
	throttled += ms(50)
	for tid := 1; tid <= 4; tid++ {
		f.stats[tid] = host.SchedStat{RunDelay: ms(150)}
	}
	f.stats[1] = host.SchedStat{RunDelay: ms(180)}
	tr.sample()
	// Nothing throttled: every millisecond of run delay is a wait.
	f.stats[2] = host.SchedStat{RunDelay: ms(160)}
	f.stats[5] = host.SchedStat{RunDelay: ms(7)} // born
	got := tr.Close()
	require.NotNil(t, got)
	assert.Equal(t, ms(80+50*3+10+7), got.RunDelay)
	require.NotNil(t, got.Waited)
	assert.Equal(t, ms(30+10+7), *got.Waited)

	ok = false
	tr = NewTracker(w)
	tr.Open()
	got = tr.Close()
	require.NotNil(t, got)
	assert.Nil(t, got.Waited, "no throttled time read: no split")
}
