package runner

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// fakeTrace is a tracer that, when stopped, reports one throttle on CPU 1
// from its attach to its stop: the whole measured window, and whatever it
// holds.
type fakeTrace struct {
	dir     string
	onEvent func(throttle.Event)
	start   int64
	stopped int
	clock   *fakeMono
}

// fakeMono is a CLOCK_MONOTONIC that moves only when told: the test's
// window and events line up by construction, not by a real sleep.
type fakeMono struct{ t int64 }

func (c *fakeMono) now() int64                    { return c.t }
func (c *fakeMono) advance(d time.Duration) int64 { c.t += int64(d); return c.t }

func (f *fakeTrace) Stop() (uint64, error) {
	f.stopped++
	if f.stopped == 1 {
		f.onEvent(throttle.Event{CPU: 1, TID: 7, Start: f.start, End: f.clock.now()})
	}
	return 3, nil
}

func (f *fakeTrace) Attach() string { return "fake" }

// tracedChild's measured iterations run while the window is open, stamped
// on CLOCK_MONOTONIC as the driver stamps them.
type tracedChild struct {
	fakeChild
	clock *fakeMono
}

// Wait: two iterations of 10 ms, then 5 ms more, all in the window.
func (c tracedChild) Wait(ctx context.Context) (bench.Result, error) {
	t := c.clock.advance(time.Millisecond)
	c.clock.advance(25 * time.Millisecond)
	return bench.Result{GOMAXPROCS: 1, Iterations: []bench.Iteration{
		{Wall: 10 * time.Millisecond, StartMono: t, Workers: []bench.WorkerSample{{Wall: 10 * time.Millisecond}}},
		{Wall: 10 * time.Millisecond, StartMono: t + int64(10*time.Millisecond), Workers: []bench.WorkerSample{{Wall: 10 * time.Millisecond}}},
	}}, c.w.step("wait")
}

// --trace: the tracer follows the slice over the measured window; its
// events become throttle_events and each iteration's throttled time; the
// raw events go to the sink; the tracer is stopped once, on the way out.
func TestTracedRun(t *testing.T) {
	w := &world{}
	l := w.local()
	clock := &fakeMono{t: int64(time.Hour)}
	ft := &fakeTrace{clock: clock}
	l.Monotonic = clock.now
	l.StartTrace = func(dir string, onEvent func(throttle.Event)) (TraceHandle, error) {
		ft.dir, ft.onEvent, ft.start = dir, onEvent, clock.now()
		return ft, nil
	}
	l.StartChild = func(string, bench.Config, io.Writer) (Child, error) { return tracedChild{fakeChild{w}, clock}, nil }
	o := options(ModeCreate)
	o.Trace = true
	var sunk throttle.Trace
	o.TraceSink = func(tr throttle.Trace) error {
		sunk = tr
		assert.GreaterOrEqual(t, tr.T0, ft.start, "the window opens after the attach")
		return nil
	}
	rep, err := l.Run(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, "/fake/cpu/throttlebench/tb-fake", ft.dir, "the slice is traced")
	assert.Equal(t, 1, ft.stopped, "stopped once")
	require.NotNil(t, rep.ThrottleEvents)
	te := rep.ThrottleEvents
	assert.Equal(t, "ebpf", te.Source)
	assert.Equal(t, 1, te.Count)
	assert.Equal(t, uint64(3), te.EventsLost)
	require.Len(t, te.CPUs, 1)
	assert.Equal(t, 1, te.CPUs[0].CPU)
	assert.Greater(t, te.TotalMs, 20.0, "the window held the 25 ms wait")
	assert.Equal(t, []float64{10, 10}, rep.ThrottledMsPerIteration, "each iteration lay wholly in the throttle")
	assert.Len(t, sunk.Events, 1)
	assert.Len(t, sunk.Spans, 2, "the iterations, to draw")
	assert.Equal(t, "iteration", sunk.What)
	assert.Contains(t, strings.Join(rep.Warnings, "\n"), "throttle events lost: 3")
}

// Where tracing cannot start, the run goes on and says why, once; without
// --trace nothing is attached.
func TestTraceUnavailable(t *testing.T) {
	w := &world{}
	l := w.local()
	calls := 0
	l.StartTrace = func(string, func(throttle.Event)) (TraceHandle, error) {
		calls++
		return nil, errors.New("loading the BPF program was refused (operation not permitted)")
	}
	o := options(ModeCreate)
	rep, err := l.Run(context.Background(), o)
	require.NoError(t, err)
	assert.Zero(t, calls, "no --trace, no tracer")
	assert.Nil(t, rep.ThrottleEvents)

	o.Trace = true
	rep, err = l.Run(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, 1, calls)
	assert.Nil(t, rep.ThrottleEvents)
	assert.Nil(t, rep.ThrottledMsPerIteration)
	n := 0
	for _, w := range rep.Warnings {
		if strings.HasPrefix(w, "throttle events not traced: loading the BPF program was refused") {
			n++
		}
	}
	assert.Equal(t, 1, n, "said once: %q", rep.Warnings)
}
