package fleet

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
)

// The instances' floor is measured before the run, on an instance of its
// own in a slice of its own, both gone before the run's first: a primer
// starts the instance, and the floor's requests are dispatched from its
// answer on, so none of them waits for the cold start, however long it
// takes; they come back as floor_ms, and the run's own instances and
// requests are as without it.
func TestFleetFloor(t *testing.T) {
	// A cold start of 300 ms. Before the primer, the floor's first ~300
	// requests (1 ms apart) arrived during it and were left out, and
	// under TCG a cold start of a second left 1 of 200. Now every floor
	// request comes after it, and a floor that held any of it would
	// have its max near 300 ms, while the warm requests' own latency is
	// the dispatcher's and the fake instance's. 30 runs beside a busy
	// loop on each CPU (go run ./test/stress -n 30 -run TestFleetFloor,
	// a Kubernetes build beside them too): the floor's max median 5.0 ms,
	// p90 10.9, highest 35.1, mean 6.8, sd 5.7; half the cold start,
	// 150 ms, is 21 means out, past anything an exponential tail of that
	// mean reaches in 10^9 runs.
	w := &fleetWorld{coldStart: 300 * time.Millisecond} // served at once
	rep := runWithFloor(t, w, 3)

	require.Len(t, w.Created(), 4, "the floor's slice, then the run's three")
	require.Len(t, w.children, 4)
	floorInst := w.children[0]
	// The primer, then 200 requests 1 ms apart (--arrivals once: the
	// shortest gap), all after the cold start.
	assert.Equal(t, 201, floorInst.served, "the floor's instance served the primer and every floor request")
	require.NotNil(t, rep.Floor)
	require.NotNil(t, rep.FloorMs)
	assert.Equal(t, "fixed", rep.Floor.Arrivals)
	assert.Equal(t, 1.0, rep.Floor.IntervalMs)
	assert.Equal(t, 200, rep.Floor.Wakeups, "every one: the first found the instance ready")
	assert.Positive(t, rep.FloorMs.P50)
	assert.Less(t, rep.Floor.MaxMs, 150.0, "none of the cold start")
	t.Logf("floor: p50 %.3f p99 %.3f max %.3f ms, %d requests, took %.0f ms", rep.FloorMs.P50, rep.FloorMs.P99, rep.Floor.MaxMs, rep.Floor.Wakeups, rep.Floor.TookMs)
	assert.GreaterOrEqual(t, rep.Floor.TookMs, 300.0+199, "the cold start, then 200 requests 1 ms apart")
	assert.False(t, report.HasKind(rep.Warnings, report.KindNoFloor), "%q", rep.Warnings)

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
	log := w.Log()
	first := slices.IndexFunc(log, func(e string) bool { return strings.HasPrefix(e, "move ") })
	require.GreaterOrEqual(t, first, 0, "log: %v", log)
	assert.Equal(t, "move 1000", log[first], "log: %v", log)
	assert.Equal(t, w.Created()[0], w.Into(1000))
	assert.Equal(t, w.Created()[0], w.Deleted()[0], "the floor's slice removed first")
}

// A floor whose requests mostly waited for a cold start is no floor:
// floor_ms is null and the warnings say why. The floor's instance dies
// with its first floor request in flight (the primer answered), and the
// next takes 300 ms to start, while the floor's 200 requests, 1 ms apart,
// arrive and queue.
func TestFleetFloorTooFew(t *testing.T) {
	rep := runWithFloor(t, &fleetWorld{coldStart: 300 * time.Millisecond, crashAfter: map[int]int{0: 1}}, 2)
	assert.Nil(t, rep.FloorMs)
	assert.Nil(t, rep.Floor)
	i := slices.IndexFunc(rep.Warnings, func(w report.Warning) bool { return w.Kind == report.KindNoFloor })
	require.GreaterOrEqual(t, i, 0, "%q", rep.Warnings)
	assert.True(t, strings.HasPrefix(rep.Warnings[i].Text, "no floor: "))
	assert.Contains(t, rep.Warnings[i].Text, "of the floor's 200 requests were served once its instance was ready")
	assert.Equal(t, 2, rep.Completed, "the run itself goes on")
}

// The floor's requests come 1 ms apart here and each takes 5 ms: they
// queue behind each other, a queue of the floor's own schedule that would
// grow to about 800 ms by the 200th. Each is timed from when the instance
// was free to take it, so the floor is the 5 ms round trip and what the
// dispatcher adds (its max 35 ms in 30 runs beside a busy loop on each
// CPU, TestFleetFloor), not the queue.
func TestFleetFloorLeavesOutItsOwnQueue(t *testing.T) {
	rep := runWithFloor(t, &fleetWorld{coldStart: 5 * time.Millisecond, service: 5 * time.Millisecond}, 2)
	require.NotNil(t, rep.Floor)
	require.NotNil(t, rep.FloorMs)
	assert.Equal(t, 200, rep.Floor.Wakeups)
	assert.GreaterOrEqual(t, rep.FloorMs.P50, 5.0, "the round trip itself")
	assert.Less(t, rep.Floor.MaxMs, 400.0, "half the queue's end")
	assert.GreaterOrEqual(t, rep.Floor.TookMs, 200*5.0, "the queue was there: 200 answers of 5 ms one after another")
}

// runWithFloor runs n requests on per-request instances of w with the
// floor measured first, and checks that nothing was left.
func runWithFloor(t *testing.T, w *fleetWorld, n int) *report.Latency {
	t.Helper()
	f := w.fleet()
	f.NoFloor = false
	rep, err := f.Run(context.Background(), fleetOptions("per-request", n, 1))
	require.NoError(t, err)
	w.allGone(t)
	return rep
}
