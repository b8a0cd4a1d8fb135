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
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
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
	groups  []uint64 // the throttled groups, one event on its own CPU each; none: one event of group 0 on CPU 1
}

// fakeMono is a CLOCK_MONOTONIC that moves only when told: the test's
// window and events line up by construction, not by a real sleep.
type fakeMono struct{ t int64 }

func (c *fakeMono) now() int64                    { return c.t }
func (c *fakeMono) advance(d time.Duration) int64 { c.t += int64(d); return c.t }

func (f *fakeTrace) Stop() (uint64, error) {
	f.stopped++
	if f.stopped == 1 && len(f.groups) == 0 {
		f.onEvent(throttle.Event{CPU: 1, TID: 7, Start: f.start, End: f.clock.now()})
	}
	for i, g := range f.groups {
		if f.stopped == 1 {
			f.onEvent(throttle.Event{CPU: i, TID: 7, Start: f.start, End: f.clock.now(), Group: g})
		}
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

// --trace of a slice whose events name it and a group below it: the
// family is read just before the window opens and just after it closes,
// and each group's traced time is set against its own counter's change
// over the window; a group the window's end no longer finds is set
// against its last reading before its removal (counted).
func TestTracedRunGroups(t *testing.T) {
	w := &world{}
	l := w.local()
	clock := &fakeMono{t: int64(time.Hour)}
	ft := &fakeTrace{clock: clock, groups: []uint64{10, 11, 12}}
	l.Monotonic = clock.now
	l.StartTrace = func(dir string, onEvent func(throttle.Event)) (TraceHandle, error) {
		ft.dir, ft.onEvent, ft.start = dir, onEvent, clock.now()
		return ft, nil
	}
	l.StartChild = func(string, bench.Config, io.Writer) (Child, error) { return tracedChild{fakeChild{w}, clock}, nil }
	ns := func(ms int) *cgroup.CPUStat {
		d := time.Duration(ms) * time.Millisecond
		return &cgroup.CPUStat{ThrottledTime: &d}
	}
	var reads []int64
	l.TraceFamily = func(_ cgroup.Host, dir string) ([]cgroup.Member, error) {
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
	ws := strings.Join(rep.Warnings, "\n")
	assert.Contains(t, ws, "disagree for /throttlebench/tb-fake/in (descendant)")
	assert.NotContains(t, ws, "disagree for /throttlebench/tb-fake (target)")
	assert.Contains(t, ws, "26.0 ms of throttle events in 1 group checked against no counter (/throttlebench/tb-fake/gone 26.0 ms")
	require.NotNil(t, te.Agreement)
	assert.InDelta(t, 52, te.Agreement.TracedMs, 1e-9, "the target and its counted descendant")
	assert.Equal(t, 86.0, te.Agreement.CounterMs)
}

// counted: a group below the traced cgroup, read before its removal,
// replaces the window's end reading of it; one elsewhere is ignored.
func TestTraceWindowCounted(t *testing.T) {
	d := func(ms int) *time.Duration { v := time.Duration(ms) * time.Millisecond; return &v }
	tw := &traceWindow{dir: "/cg/parent", id: func(dir string) (uint64, error) {
		return map[string]uint64{"/cg/parent/i1": 5, "/cg/other": 6}[dir], nil
	}}
	tw.start = []cgroup.Member{{ID: 1, Path: "/parent", Relation: cgroup.RelTarget, Stat: &cgroup.CPUStat{ThrottledTime: d(0)}}}
	tw.end = []cgroup.Member{{ID: 1, Path: "/parent", Relation: cgroup.RelTarget, Stat: &cgroup.CPUStat{ThrottledTime: d(0)}}}
	tw.counted(cgroup.Cgroup{Path: "/parent/i1", Dir: "/cg/parent/i1"}, cgroup.CPUStat{ThrottledTime: d(40)})
	tw.counted(cgroup.Cgroup{Path: "/other", Dir: "/cg/other"}, cgroup.CPUStat{ThrottledTime: d(9)})
	tw.counted(cgroup.Cgroup{Path: "/parentx", Dir: "/cg/parentx"}, cgroup.CPUStat{ThrottledTime: d(9)})
	got := tw.counters()
	require.Len(t, got, 2)
	assert.Equal(t, throttle.Counter{ID: 5, Path: "/parent/i1", Relation: cgroup.RelDescendant, CounterMs: ptrF(40)}, got[1],
		"made and removed within the window: its last reading is all of it")
	var nilTW *traceWindow
	nilTW.counted(cgroup.Cgroup{Dir: "/cg/parent/x"}, cgroup.CPUStat{}) // untraced: nothing
}

func ptrF(v float64) *float64 { return &v }
