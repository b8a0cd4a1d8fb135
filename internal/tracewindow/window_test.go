package tracewindow

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// fakeHandle is a tracer that notes the groups it traces and records no
// event: the window's own bookkeeping, without the runner (whose tests
// trace a whole run through runner.Tracing).
type fakeHandle struct {
	ids     []uint64 // tracked now
	stopped int
	ends    string
	// What the window handed the tracer to call, kept for a test to
	// deliver with.
	onEvent func(throttle.Event)
	onState func(throttle.State)
	lost    uint64 // states lost so far
}

func (f *fakeHandle) attach(onEvent func(throttle.Event), onState func(throttle.State)) (Handle, error) {
	f.onEvent, f.onState = onEvent, onState
	return f, nil
}
func (f *fakeHandle) Track(id uint64) error { f.ids = append(f.ids, id); return nil }
func (f *fakeHandle) Untrack(id uint64) error {
	f.ids = slices.DeleteFunc(f.ids, func(x uint64) bool { return x == id })
	return nil
}
func (f *fakeHandle) Sync() error             { return nil }
func (f *fakeHandle) LostSoFar() uint64       { return 0 }
func (f *fakeHandle) StatesLostSoFar() uint64 { return f.lost }
func (f *fakeHandle) Stop() (uint64, error)   { f.stopped++; return 0, nil }
func (f *fakeHandle) Attach() string          { return "fake" }
func (f *fakeHandle) HoldEnds() string        { return f.ends }

// Counted: a group below the traced cgroup, read before its removal,
// replaces the window's end reading of it; one elsewhere is ignored.
func TestWindowCounted(t *testing.T) {
	t.Parallel()
	d := func(ms int) *time.Duration { v := time.Duration(ms) * time.Millisecond; return &v }
	tw := &Window{dir: "/cg/parent", id: func(dir string) (uint64, error) {
		return map[string]uint64{"/cg/parent/i1": 5, "/cg/other": 6}[dir], nil
	}}
	tw.start = []cgroup.Member{{ID: 1, Path: "/parent", Relation: cgroup.RelTarget, Stat: &cgroup.CPUStat{ThrottledTime: d(0)}}}
	tw.end = []cgroup.Member{{ID: 1, Path: "/parent", Relation: cgroup.RelTarget, Stat: &cgroup.CPUStat{ThrottledTime: d(0)}}}
	tw.Counted(cgroup.Cgroup{Path: "/parent/i1", Dir: "/cg/parent/i1"}, cgroup.CPUStat{ThrottledTime: d(40)})
	tw.Counted(cgroup.Cgroup{Path: "/other", Dir: "/cg/other"}, cgroup.CPUStat{ThrottledTime: d(9)})
	tw.Counted(cgroup.Cgroup{Path: "/parentx", Dir: "/cg/parentx"}, cgroup.CPUStat{ThrottledTime: d(9)})
	got := tw.counters()
	require.Len(t, got, 2)
	assert.Equal(t, throttle.Counter{ID: 5, Path: "/parent/i1", Relation: cgroup.RelDescendant, CounterMs: ptrF(40)}, got[1],
		"made and removed within the window: its last reading is all of it")
	var nilTW *Window
	nilTW.Counted(cgroup.Cgroup{Dir: "/cg/parent/x"}, cgroup.CPUStat{}) // untraced: nothing
}

func ptrF(v float64) *float64 { return &v }

// A run whose groups are tracked one by one (the instances' slices) keeps,
// of its parent's family, the ancestors (the parent among them, whose
// other children are not the run's) and the groups it tracked: another
// run's slice under the same parent is not its own, at either end of the
// window, nor when its counters are read before its removal.
func TestWindowOwnFamily(t *testing.T) {
	t.Parallel()
	ids := map[string]uint64{"/cg/tb/mine": 5, "/cg/tb/other": 6}
	ft := &fakeHandle{}
	d := func(ms int) *cgroup.CPUStat {
		v := time.Duration(ms) * time.Millisecond
		return &cgroup.CPUStat{ThrottledTime: &v}
	}
	family := func(dir string) ([]cgroup.Member, error) {
		assert.Equal(t, "/cg/tb", dir)
		return []cgroup.Member{
			{ID: 2, Path: "/tb", Relation: cgroup.RelTarget, Stat: d(0)},
			{ID: 5, Path: "/tb/mine", Relation: cgroup.RelDescendant, Stat: d(40)},
			{ID: 6, Path: "/tb/other", Relation: cgroup.RelDescendant, Stat: d(90)},
			{ID: 1, Path: "/", Relation: cgroup.RelAncestor},
		}, nil
	}
	s := &Session{}
	tw := New(s, Config{FamDir: "/cg/tb", NewTracer: ft.attach, Now: func() int64 { return 0 },
		ID: func(dir string) (uint64, error) { return ids[dir], nil }, Family: family})
	require.NoError(t, tw.why)
	tw.Track("/cg/tb/mine")
	assert.Equal(t, []uint64{5}, ft.ids, "only the run's slice is traced")
	fam, err := tw.family()
	require.NoError(t, err)
	assert.Equal(t, []cgroup.Member{
		{ID: 2, Path: "/tb", Relation: cgroup.RelAncestor, Stat: d(0)},
		{ID: 5, Path: "/tb/mine", Relation: cgroup.RelDescendant, Stat: d(40)},
		{ID: 1, Path: "/", Relation: cgroup.RelAncestor},
	}, fam)
	tw.Counted(cgroup.Cgroup{Path: "/tb/other", Dir: "/cg/tb/other"}, *d(90))
	tw.Counted(cgroup.Cgroup{Path: "/tb/mine", Dir: "/cg/tb/mine"}, *d(40))
	require.Len(t, tw.gone, 1)
	assert.Equal(t, uint64(5), tw.gone[0].ID)
	tw.Untrack("/cg/tb/mine")
	assert.Empty(t, ft.ids)
	tw.Stop()
	_, err = s.Stop()
	require.NoError(t, err)
	assert.Equal(t, 1, ft.stopped)
}

// A result says where its holds ended (hold_ends), the tracer's word;
// where that is only an upper bound (before 6.6, unhooked), a
// trace_upper_bound warning says so, and not otherwise.
func TestWindowHoldEnds(t *testing.T) {
	t.Parallel()
	for _, ends := range []string{throttle.EndsUnthrottle, throttle.EndsQueueClock, throttle.EndsUpperBound} {
		ft := &fakeHandle{ends: ends}
		s := &Session{}
		tw := New(s, Config{FamDir: "/cg/tb", NewTracer: ft.attach, Now: func() int64 { return 0 },
			ID:     func(string) (uint64, error) { return 5, nil },
			Family: func(string) ([]cgroup.Member, error) { return nil, nil }, EmptyStretches: func() bool { return false }})
		require.NoError(t, tw.why)
		tw.Open()
		te, warnings := tw.Summary()
		require.NotNil(t, te, ends)
		assert.Equal(t, ends, te.HoldEnds)
		upper := slices.ContainsFunc(warnings, func(w report.Warning) bool { return w.Kind == report.KindTraceUpperBound })
		assert.Equal(t, ends == throttle.EndsUpperBound, upper, ends)
		_, err := s.Stop()
		require.NoError(t, err)
	}
}

// A latency window splits each request by its worker's timeline (states
// and holds handed over while it is open): a breakdown in the result; a
// window that keeps no states (sample) has none, and states
// lost by the kernel are a warning.
func TestWindowBreakdown(t *testing.T) {
	t.Parallel()
	run := func(states bool, lost uint64, spans ...throttle.Span) *report.Latency {
		ft := &fakeHandle{}
		s := &Session{}
		tw := New(s, Config{FamDir: "/cg/tb", Dir: "/cg/tb", NewTracer: ft.attach, Now: func() int64 { return 0 },
			ID:     func(string) (uint64, error) { return 5, nil },
			Family: func(string) ([]cgroup.Member, error) { return nil, nil }, EmptyStretches: func() bool { return false },
			States: states})
		require.NoError(t, tw.why)
		ft.lost = lost
		// Thread 7 on a CPU 0-10, held 10-40, waiting to 50, on to 60.
		ft.onState(throttle.State{TID: 7, Time: 0, To: throttle.OnCPU})
		ft.onState(throttle.State{TID: 7, Time: 10, To: throttle.Waiting})
		ft.onEvent(throttle.Event{TID: 7, Start: 10, End: 40})
		ft.onState(throttle.State{TID: 7, Time: 50, To: throttle.OnCPU})
		ft.onState(throttle.State{TID: 7, Time: 60, To: throttle.OffCPU})
		var rep report.Latency
		if spans == nil {
			spans = []throttle.Span{{Start: 0, End: 60, TID: 7, CPU: -1}, {Start: 0, End: 60, TID: 8, CPU: -1}}
		}
		tw.Latency(&rep, spans, throttle.ThreadsWorker)
		_, err := s.Stop()
		require.NoError(t, err)
		return &rep
	}
	rep := run(true, 0)
	require.NotNil(t, rep.RequestThrottles)
	b := rep.Breakdown
	require.NotNil(t, b)
	assert.Equal(t, 1, b.Count)
	assert.Equal(t, 1, b.Unknown, "thread 8 was never seen")
	assert.InDelta(t, 0.5, b.P99Share.Held, 1e-9)
	assert.Contains(t, report.Texts(rep.Warnings)[0], "1 of 2 requests not broken down by cause")

	assert.Nil(t, run(false, 0).Breakdown, "no states kept")
	none := run(true, 0, throttle.Span{Start: 0, End: 60, TID: 8, CPU: -1})
	assert.Nil(t, none.Breakdown, "no request's thread seen")
	assert.Contains(t, strings.Join(report.Texts(none.Warnings), "\n"), "1 of 1 requests not broken down by cause",
		"said, though there is no breakdown to say it in")
	lost := run(true, 3)
	require.NotNil(t, lost.Breakdown)
	assert.Contains(t, strings.Join(report.Texts(lost.Warnings), "\n"), "3 of the threads' switches and wake-ups were lost")
}
