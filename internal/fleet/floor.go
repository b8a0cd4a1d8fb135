package fleet

import (
	"context"
	"fmt"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/instances"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// measureFloor is the instances' floor, measured before the run as the
// open loop's is (bench.Floor), through the run's own path: the
// dispatcher's timer, the pipe to an instance in a slice of its own with
// the run's limits, the instance's reply read back. One instance (shared,
// one request at a time, no init) serves the floor's requests, which need
// no work, spaced as the run's arrivals are (bench.FloorSchedule). A
// primer goes first and starts the instance; the floor's requests are
// dispatched from its answer on, so they all find the instance ready,
// however long its cold start took (about a second under TCG, where the
// floor once began before it and kept 1 of its 200 requests), and the
// cold start stays the run's own to report. Those before the first that
// found the instance ready and idle (it failed and started again) are left
// out; where fewer than half are left, the floor is nil with the reason
// why, for the result's warnings.
func (f Fleet) measureFloor(ctx context.Context, k runner.Local, o runner.Options, p *runner.Place, cal bench.Calibration, gmp int) (*bench.Floor, string, error) {
	begin := time.Now()
	floorSched, kind, gap := bench.FloorSchedule(o.Open)
	sched := append([]time.Duration{0}, floorSched...)
	// Kept alive until the end: one instance for every floor request.
	spec := runspec.Instances{Policy: instances.Shared, Concurrency: 1, KeepAlive: time.Hour}
	policy, err := instances.ParsePolicy(spec.Policy, spec.Concurrency, spec.KeepAlive)
	if err != nil {
		return nil, "", err
	}
	fo := o
	fo.Open.Work, fo.Open.Wait = 0, 0
	fo.Open.Instances = &spec
	fo.Trace, fo.TraceSink = false, nil // the tracer follows the run alone
	r := &fleetRun{f: f, k: k, o: fo, place: p, started: begin, sched: sched, primed: true,
		init:   bench.InstanceInit{Concurrency: 1, IterationsPerMs: cal.IterationsPerMs, GOMAXPROCS: gmp},
		m:      instances.New(policy),
		events: make(chan fleetEvent, 64), quit: make(chan struct{}), cal: cal}
	if _, _, err := r.serve(ctx); err != nil {
		return nil, "", err
	}
	// From the first request that found the instance ready and idle on:
	// the primer's answer makes that request 1, unless the instance
	// failed and started again. Each is timed from when the instance was
	// free to take it: its arrival, or the answer before it where that
	// came later. The floor's requests come up to 200 a second, whatever
	// the run's rate, and where one round trip outlasts their gap (under
	// TCG beside a busy loop on every host CPU) they would queue behind
	// each other, and the floor would grow with its own schedule (a p50
	// of 59 ms against round trips of a few): that queue is the floor's,
	// not the harness's; the run's own queueing is the run's to measure.
	floor := r.reqs[1:]
	warm := len(floor)
	for i, q := range floor {
		prev := r.reqs[i] // the one before q: the primer for the first
		if q.reply != nil && q.instance >= 0 && q.arrival >= r.insts[q.instance].readyAt && q.arrival >= prev.received {
			warm = i
			break
		}
	}
	var lat []time.Duration
	for i := warm; i < len(floor); i++ {
		if q := floor[i]; q.failed == "" && q.reply != nil {
			free := max(q.arrival, r.reqs[i].received) // r.reqs[i]: the one before q
			lat = append(lat, time.Duration(q.received-free))
		}
	}
	if len(lat) < len(floorSched)/2 {
		why := fmt.Sprintf("no floor: %d of the floor's %d requests were served once its instance was ready (the rest waited for a cold start, or failed), too few for a floor; floor_ms is null",
			len(lat), len(floorSched))
		if r.reqs[0].failed != "" {
			why += "; its first request failed: " + r.reqs[0].failed
		}
		return nil, why, nil
	}
	fl := bench.FloorFrom(lat, kind, gap, time.Since(begin))
	return &fl, "", nil
}
