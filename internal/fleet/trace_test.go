package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
)

// fleetTracer is a tracer for the fleet's goroutines: it notes what is
// tracked, and checks that each slice is untracked before its removal.
type fleetTracer struct {
	w        *fleetWorld
	mu       sync.Mutex
	attached int
	stopped  int
	tracked  map[uint64]bool
	ever     []uint64
	late     []string // slices untracked after their removal
	onState  func(throttle.State)
}

func (f *fleetTracer) attach(_ func(throttle.Event), onState func(throttle.State)) (tracewindow.Handle, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attached++
	f.tracked = map[uint64]bool{}
	f.onState = onState
	return f, nil
}

// Track also says that a thread of the group (its id for a thread id)
// is on a CPU from now on.
func (f *fleetTracer) Track(id uint64) error {
	f.mu.Lock()
	f.tracked[id] = true
	f.ever = append(f.ever, id)
	onState := f.onState
	f.mu.Unlock()
	if onState != nil {
		onState(throttle.State{TID: int32(id), Time: bench.Monotonic(), To: throttle.OnCPU, Group: id})
	}
	return nil
}

func (f *fleetTracer) Untrack(id uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.tracked, id)
	dir := fleetDirOf(id)
	if slices.Contains(f.w.Deleted(), dir) {
		f.late = append(f.late, dir)
	}
	return nil
}

func (f *fleetTracer) Sync() error             { return nil }
func (f *fleetTracer) LostSoFar() uint64       { return 0 }
func (f *fleetTracer) StatesLostSoFar() uint64 { return 0 }
func (f *fleetTracer) Attach() string          { return "fake" }
func (f *fleetTracer) HoldEnds() string        { return "" }
func (f *fleetTracer) Stop() (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped++
	return 0, nil
}

// The fleet world's ids: its slices are parent/tb-N (id 100+N); another
// run's slice beside them, id 99.
const fleetParent = "/fake/cpu/throttlebench"

func fleetIDOf(dir string) (uint64, error) {
	var n uint64
	if _, err := fmt.Sscanf(strings.TrimPrefix(dir, fleetParent+"/"), "tb-%d", &n); err != nil {
		return 0, fmt.Errorf("%s: no fake id", dir)
	}
	return 100 + n, nil
}

func fleetDirOf(id uint64) string { return fmt.Sprintf("%s/tb-%d", fleetParent, id-100) }

// --instances --trace, two configurations on one Local (latency's list):
// one attach for both; each instance's slice tracked as it is made and
// untracked before its removal, and nothing else tracked (not the parent,
// which other runs' slices share); the parent's family read keeps its
// ancestors and the run's own slices, not another run's slice beside them.
func TestFleetTracesItsOwnSlices(t *testing.T) {
	t.Parallel()
	w := &fleetWorld{coldStart: 5 * time.Millisecond, service: 5 * time.Millisecond}
	ft := &fleetTracer{w: w}
	fl := w.fleet()
	fl.Local.Tracing.NewTracer, fl.Local.Tracing.CgroupID = ft.attach, fleetIDOf
	var famMu sync.Mutex
	var famDirs []string
	fl.Local.Tracing.TraceFamily = func(_ cgroup.Host, dir string) ([]cgroup.Member, error) {
		famMu.Lock()
		famDirs = append(famDirs, dir)
		v := time.Duration(len(famDirs)) * 50 * time.Millisecond // the other run's slice is throttled meanwhile
		famMu.Unlock()
		return []cgroup.Member{
			{ID: 1, Path: "/throttlebench", Relation: cgroup.RelTarget},
			{ID: 99, Path: "/throttlebench/tb-other", Relation: cgroup.RelDescendant, Stat: &cgroup.CPUStat{ThrottledTime: &v}},
		}, nil
	}
	o := fleetOptions("per-request", 4, 1)
	o.Trace = true
	for i := range 2 {
		rep, err := fl.Run(context.Background(), o)
		require.NoError(t, err)
		require.NotNil(t, rep.ThrottleEvents, "configuration %d: %q", i, rep.Warnings)
		assert.Equal(t, 1, rep.ThrottleEvents.Attaches, "configuration %d", i)
		for _, g := range rep.ThrottleEvents.Groups {
			assert.NotEqual(t, uint64(99), g.CgroupID, "another run's slice is not this run's: %+v", g)
		}
		// Each request split over its own instance's threads: off CPU
		// until its instance's slice was made (the cold start's
		// beginning), on a CPU since.
		if b := rep.RequestThrottles.Breakdown; assert.NotNil(t, b, "configuration %d: %q", i, rep.Warnings) {
			assert.Equal(t, throttle.ThreadsInstance, b.Threads)
			assert.Equal(t, rep.Completed, b.Count)
			assert.Zero(t, b.Unknown)
			assert.Positive(t, b.OnCPUMs.P50)
			assert.Positive(t, b.OffCPUMs.P50)
		}
	}
	w.allGone(t)
	ft.mu.Lock()
	assert.Equal(t, 1, ft.attached, "one attach for the list")
	assert.Empty(t, ft.tracked, "every slice untracked")
	assert.Empty(t, ft.late, "untracked before their removal")
	var want []uint64
	for _, dir := range w.Created() {
		id, err := fleetIDOf(dir)
		require.NoError(t, err)
		want = append(want, id)
	}
	assert.ElementsMatch(t, want, ft.ever, "each instance's slice, and nothing else")
	assert.Contains(t, famDirs, fleetParent, "the family read around the parent")
	assert.Zero(t, ft.stopped, "kept until Close")
	ft.mu.Unlock()
	require.NoError(t, fl.Local.Close())
	assert.Equal(t, 1, ft.stopped)
}
