package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The instances' floor is measured before the run, on an instance of its
// own in a slice of its own, both gone before the run's first: its
// requests come back as floor_ms, those that waited for its cold start
// left out, and the run's own instances and requests are as without it.
func TestFleetFloor(t *testing.T) {
	// A cold start of 100 ms: the floor's first ~100 requests arrive
	// before the instance is ready and wait up to 100 ms, so a floor that
	// kept them would have its p99 near 100 ms, while the warm requests'
	// own latency is the dispatcher's and the fake instance's, well under
	// a millisecond on a quiet machine and 15 ms seen with three builds
	// beside it on two CPUs (with a 20 ms cold start and a 10 ms bound,
	// that load failed this test). Halfway, 50 ms, tells them apart.
	w := &fleetWorld{coldStart: 100 * time.Millisecond} // served at once
	f := w.fleet()
	f.NoFloor = false
	rep, err := f.Run(context.Background(), fleetOptions("per-request", 3, 1))
	require.NoError(t, err)
	w.allGone(t)

	require.Len(t, w.created, 4, "the floor's slice, then the run's three")
	require.Len(t, w.children, 4)
	floorInst := w.children[0]
	// 200 requests 1 ms apart (--arrivals once: the shortest gap), the
	// first ~100 before it was ready, 100 ms after the first, and a few
	// more queued behind them.
	assert.Equal(t, 200, floorInst.served, "the floor's instance served every floor request")
	require.NotNil(t, rep.Floor)
	require.NotNil(t, rep.FloorMs)
	assert.Equal(t, "fixed", rep.Floor.Arrivals)
	assert.Equal(t, 1.0, rep.Floor.IntervalMs)
	assert.Less(t, rep.Floor.Wakeups, 150, "the requests that arrived before it was ready and idle are left out")
	assert.Greater(t, rep.Floor.Wakeups, 20)
	assert.Positive(t, rep.FloorMs.P50)
	assert.Less(t, rep.FloorMs.P99, 50.0, "and none of the cold start")
	assert.GreaterOrEqual(t, rep.Floor.TookMs, 199.0)

	// The run's own, as without the floor.
	res := rep.InstancesResult
	require.NotNil(t, res)
	assert.Equal(t, 3, res.InstancesStarted)
	assert.Equal(t, 3, res.ColdStarts)
	assert.Equal(t, 3, rep.Completed)
	for _, c := range w.children[1:] {
		assert.Equal(t, 1, c.served, "instance %d", c.n)
	}
	// The floor's instance was done with before the run's first started:
	// it was the first moved into a slice, the first slice made, and
	// that slice the first removed. (The run's instances start in
	// parallel, their slices in any order.)
	require.NotEmpty(t, w.log)
	assert.Equal(t, "move 1000 into "+w.created[0], w.log[0], "log: %v", w.log)
	w.mu.Lock()
	assert.Equal(t, w.created[0], w.deleted[0], "the floor's slice removed first")
	w.mu.Unlock()
}
