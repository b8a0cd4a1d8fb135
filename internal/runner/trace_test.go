package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
)

// fakeTrace is a tracer that, at each Sync, reports one throttle on CPU 1
// (of group 0), or one per group on its own CPU, from the last Track to
// the Sync: the whole measured window, and whatever it holds. It logs its
// Track, Untrack and Stop in the world's log, so that their order against
// the slice's making and removal shows.
type fakeTrace struct {
	w       *world
	onEvent func(throttle.Event)
	start   int64
	synced  int
	stopped int
	clock   *fakeMono
	groups  []uint64 // the throttled groups, one event on its own CPU each; none: one event of group 0 on CPU 1
	ids     []uint64 // tracked now
}

// fakeMono is a CLOCK_MONOTONIC that moves only when told: the test's
// window and events line up by construction, not by a real sleep.
type fakeMono struct{ t int64 }

func (c *fakeMono) now() int64                    { return c.t }
func (c *fakeMono) advance(d time.Duration) int64 { c.t += int64(d); return c.t }

// attach is the fake's tracer.New, as a Local's NewTracer.
func (f *fakeTrace) attach(onEvent func(throttle.Event), _ func(throttle.State)) (tracewindow.Handle, error) {
	f.onEvent = onEvent
	if f.w != nil {
		f.w.Step("attach")
	}
	return f, nil
}

func (f *fakeTrace) Track(id uint64) error {
	f.ids = append(f.ids, id)
	f.start = f.clock.now()
	if f.w != nil {
		f.w.Step(fmt.Sprintf("track %d", id))
	}
	return nil
}

func (f *fakeTrace) Untrack(id uint64) error {
	f.ids = slices.DeleteFunc(f.ids, func(x uint64) bool { return x == id })
	if f.w != nil {
		f.w.Step(fmt.Sprintf("untrack %d", id))
	}
	return nil
}

func (f *fakeTrace) Sync() error {
	f.synced++
	if len(f.groups) == 0 {
		f.onEvent(throttle.Event{CPU: 1, TID: 7, Start: f.start, End: f.clock.now()})
	}
	for i, g := range f.groups {
		f.onEvent(throttle.Event{CPU: i, TID: 7, Start: f.start, End: f.clock.now(), Group: g})
	}
	return nil
}

// LostSoFar: 3 more at each Sync.
func (f *fakeTrace) LostSoFar() uint64 { return 3 * uint64(f.synced) }

func (f *fakeTrace) StatesLostSoFar() uint64 { return 0 }

func (f *fakeTrace) Stop() (uint64, error) {
	f.stopped++
	if f.w != nil {
		f.w.Step("detach")
	}
	return 0, nil
}

func (f *fakeTrace) Attach() string   { return "fake" }
func (f *fakeTrace) HoldEnds() string { return "" }

// fakeIDs are the kernfs ids of the fake world's directories.
func fakeIDs(dir string) (uint64, error) {
	switch dir {
	case "/fake/cpu/throttlebench/tb-fake":
		return 10, nil
	case "/fake/cpu/throttlebench":
		return 1, nil
	}
	return 0, fmt.Errorf("%s: no such fake cgroup", dir)
}

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
	}}, c.w.Step("wait")
}

// --trace: the tracer follows the slice over the measured window; its
// events become throttle_events and each iteration's throttled time; the
// raw events go to the sink; the tracer is stopped once, on the way out.
func TestTracedRun(t *testing.T) {
	t.Parallel()
	w := &world{}
	l := w.local()
	clock := &fakeMono{t: int64(time.Hour)}
	ft := &fakeTrace{clock: clock}
	l.Tracing.Monotonic = clock.now
	l.Tracing.NewTracer, l.Tracing.CgroupID = ft.attach, fakeIDs
	l.Tracing.Model = func() string { return throttle.ModelQueueClock }
	l.Closed.StartChild = func(string, runspec.ClosedLoop, io.Writer) (Child, error) {
		return tracedChild{fakeChild{w}, clock}, nil
	}
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
	assert.Equal(t, 1, ft.synced, "the window's records read once")
	assert.Empty(t, ft.ids, "the slice untracked")
	assert.Zero(t, ft.stopped, "still attached, for the next run")
	require.NoError(t, l.Close())
	assert.Equal(t, 1, ft.stopped, "Close detaches it")
	require.NotNil(t, rep.ThrottleEvents)
	te := rep.ThrottleEvents
	assert.Equal(t, "ebpf", te.Source)
	assert.Equal(t, throttle.ModelQueueClock, te.Model, "the kernel's throttle model, recorded")
	assert.Equal(t, 1, te.Count)
	assert.Equal(t, uint64(3), te.EventsLost)
	require.Len(t, te.CPUs, 1)
	assert.Equal(t, 1, te.CPUs[0].CPU)
	assert.Greater(t, te.TotalMs, 20.0, "the window held the 25 ms wait")
	assert.Equal(t, []float64{10, 10}, rep.ThrottledMsPerIteration, "each iteration lay wholly in the throttle")
	assert.Len(t, sunk.Events, 1)
	assert.Len(t, sunk.Spans, 2, "the iterations, to draw")
	assert.Equal(t, "iteration", sunk.What)
	assert.Contains(t, strings.Join(report.Texts(rep.Warnings), "\n"), "throttle events lost: 3")
}

// Where tracing cannot start, the run goes on and says why, once; without
// --trace nothing is attached.
func TestTraceUnavailable(t *testing.T) {
	t.Parallel()
	w := &world{}
	l := w.local()
	calls := 0
	l.Tracing.NewTracer = func(func(throttle.Event), func(throttle.State)) (tracewindow.Handle, error) {
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
		if w.Kind == report.KindTraceIncomplete && strings.HasPrefix(w.Text, "throttle events not traced: loading the BPF program was refused") {
			n++
		}
	}
	assert.Equal(t, 1, n, "said once: %q", rep.Warnings)
}

// --trace of a slice whose events name it and a group below it: the
// family is read just before the window opens and just after it closes,
// and each group's traced time is set against its own counter's change
// over the window; a group the window's end no longer finds is set
// against its last reading before its removal (counted).
func TestTracedRunGroups(t *testing.T) {
	t.Parallel()
	w := &world{}
	l := w.local()
	clock := &fakeMono{t: int64(time.Hour)}
	ft := &fakeTrace{clock: clock, groups: []uint64{10, 11, 12}}
	l.Tracing.Monotonic = clock.now
	l.Tracing.NewTracer, l.Tracing.CgroupID = ft.attach, fakeIDs
	l.Closed.StartChild = func(string, runspec.ClosedLoop, io.Writer) (Child, error) {
		return tracedChild{fakeChild{w}, clock}, nil
	}
	ns := func(ms int) *cgroup.CPUStat {
		d := time.Duration(ms) * time.Millisecond
		return &cgroup.CPUStat{ThrottledTime: &d}
	}
	var reads []int64
	l.Tracing.TraceFamily = func(_ cgroup.Host, dir string) ([]cgroup.Member, error) {
		assert.Equal(t, "/fake/cpu/throttlebench/tb-fake", dir, "the traced slice's family")
		reads = append(reads, clock.now())
		if len(reads) == 1 {
			return []cgroup.Member{
				{ID: 10, Path: "/throttlebench/tb-fake", Relation: cgroup.RelTarget, Stat: ns(100)},
				{ID: 11, Path: "/throttlebench/tb-fake/in", Relation: cgroup.RelDescendant, Stat: ns(0)},
				{ID: 12, Path: "/throttlebench/tb-fake/gone", Relation: cgroup.RelDescendant, Stat: ns(0)},
				{ID: 1, Path: "/throttlebench", Relation: cgroup.RelAncestor},
			}, nil
		}
		return []cgroup.Member{
			{ID: 10, Path: "/throttlebench/tb-fake", Relation: cgroup.RelTarget, Stat: ns(126)},
			{ID: 11, Path: "/throttlebench/tb-fake/in", Relation: cgroup.RelDescendant, Stat: ns(60)}, // 60 against 26 traced
			{ID: 1, Path: "/throttlebench", Relation: cgroup.RelAncestor},
		}, nil
	}
	o := options(ModeCreate)
	o.Trace = true
	var sunk throttle.Trace
	o.TraceSink = func(tr throttle.Trace) error { sunk = tr; return nil }
	rep, err := l.Run(context.Background(), o)
	require.NoError(t, err)
	require.Len(t, reads, 2)
	assert.LessOrEqual(t, reads[0], sunk.T0, "read before the window opens")
	assert.GreaterOrEqual(t, reads[1], sunk.T1, "and after it closes")
	te := rep.ThrottleEvents
	require.NotNil(t, te)
	require.Len(t, te.Groups, 3, "%+v", te.Groups)
	assert.Equal(t, []string{"/throttlebench/tb-fake", "/throttlebench/tb-fake/gone", "/throttlebench/tb-fake/in"},
		[]string{te.Groups[0].Path, te.Groups[1].Path, te.Groups[2].Path}, "the target first, then by path")
	assert.Equal(t, report.RelationTarget, te.Groups[0].Relation)
	for i, want := range []*float64{ptrF(26), nil, ptrF(60)} {
		g := te.Groups[i]
		assert.InDelta(t, 26, g.TracedMs, 1e-9, "%s: the window's 26 ms, one CPU", g.Path)
		assert.Equal(t, want, g.CounterMs, "%s: its own counter's change; gone, removed within the window and never counted, unknown", g.Path)
	}
	ws := strings.Join(report.Texts(rep.Warnings), "\n")
	assert.Contains(t, ws, "disagree for /throttlebench/tb-fake/in (descendant)")
	assert.NotContains(t, ws, "disagree for /throttlebench/tb-fake (target)")
	assert.Contains(t, ws, "26.0 ms of throttle events in 1 group checked against no counter (/throttlebench/tb-fake/gone 26.0 ms")
	require.NotNil(t, te.Agreement)
	assert.InDelta(t, 52, te.Agreement.TracedMs, 1e-9, "the target and its counted descendant")
	assert.Equal(t, 86.0, te.Agreement.CounterMs)
}

func ptrF(v float64) *float64 { return &v }

// A list of traced runs on one Local (sweep, latency's lists) attaches
// the tracer once, at the first, and keeps it: each run tracks its own
// slice once it is made and untracks it before it is removed, and every
// result says 1 attach; Close detaches it, and a run after it attaches
// again.
func TestTracedListAttachesOnce(t *testing.T) {
	t.Parallel()
	w := &world{}
	l := w.local()
	clock := &fakeMono{t: int64(time.Hour)}
	ft := &fakeTrace{w: w, clock: clock}
	l.Tracing.Monotonic = clock.now
	l.Tracing.NewTracer, l.Tracing.CgroupID = ft.attach, fakeIDs
	l.Closed.StartChild = func(string, runspec.ClosedLoop, io.Writer) (Child, error) {
		return tracedChild{fakeChild{w}, clock}, nil
	}
	o := options(ModeCreate)
	o.Trace = true
	for i := range 3 {
		w.ClearLog()
		rep, err := l.Run(context.Background(), o)
		require.NoError(t, err)
		require.NotNil(t, rep.ThrottleEvents, "run %d: %q", i, rep.Warnings)
		assert.Equal(t, 1, rep.ThrottleEvents.Attaches, "run %d", i)
		assert.Equal(t, uint64(3), rep.ThrottleEvents.EventsLost, "run %d: its own losses, not the list's", i)
		at := func(e string) int { return slices.Index(w.Log(), e) }
		if i == 0 {
			assert.Less(t, at("create"), at("attach"), "attached at the first traced run, once its slice is made")
		} else {
			assert.Equal(t, -1, at("attach"), "run %d: no second attach", i)
		}
		assert.Less(t, at("create"), at("track 10"), "run %d: %q", i, w.Log())
		assert.Less(t, at("track 10"), at("untrack 10"), "run %d", i)
		assert.Less(t, at("untrack 10"), at("delete"), "run %d: untracked before its removal", i)
		assert.Equal(t, -1, at("detach"), "run %d: kept attached", i)
	}
	require.NoError(t, l.Close())
	assert.Equal(t, 1, ft.stopped)
	require.NoError(t, l.Close())
	assert.Equal(t, 1, ft.stopped, "a second Close does nothing")

	w.ClearLog()
	rep, err := l.Run(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, 2, rep.ThrottleEvents.Attaches, "after Close, attached again")
	require.NoError(t, l.Close())
	assert.Equal(t, 2, ft.stopped)
}
