package fleet

import (
	"context"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/instances"
	"github.com/throttlebench/throttlebench/internal/runner"
)

// measureFloor is the instances' floor, measured before the run as the
// open loop's is (bench.Floor), through the run's own path: the
// dispatcher's timer, the pipe to an instance in a slice of its own with
// the run's limits, the instance's reply read back. One instance (shared,
// one request at a time, no init) serves the floor's requests, which need
// no work, spaced as the run's arrivals are (bench.FloorSchedule). Those
// that arrived before it was ready and idle are left out: they measure its
// cold start, which the run reports as its own. nil when none was served.
func (f Fleet) measureFloor(ctx context.Context, k runner.Local, o runner.Options, p *runner.Place, cal bench.Calibration, gmp int) (*bench.Floor, error) {
	begin := time.Now()
	sched, kind, gap := bench.FloorSchedule(o.Open)
	// Kept alive until the end: one instance for every floor request.
	spec := bench.Instances{Policy: instances.Shared, Concurrency: 1, KeepAlive: time.Hour}
	policy, err := instances.ParsePolicy(spec.Policy, spec.Concurrency, spec.KeepAlive)
	if err != nil {
		return nil, err
	}
	fo := o
	fo.Open.Work, fo.Open.Wait = 0, 0
	fo.Open.Instances = &spec
	fo.Trace, fo.TraceSink = false, nil // the tracer follows the run alone
	r := &fleetRun{f: f, k: k, o: fo, place: p, started: begin, sched: sched,
		init:   bench.InstanceInit{Concurrency: 1, IterationsPerMs: cal.IterationsPerMs, GOMAXPROCS: gmp},
		m:      instances.New(policy),
		events: make(chan fleetEvent, 64), quit: make(chan struct{}), cal: cal}
	if _, _, err := r.serve(ctx); err != nil {
		return nil, err
	}
	// The instance's start-up: the requests until the first that arrived
	// when it was ready and idle (those before it waited for the cold
	// start, or behind the ones that did).
	warm := len(r.reqs)
	for i, q := range r.reqs {
		if q.reply != nil && q.arrival >= r.insts[q.instance].readyAt && (i == 0 || q.arrival >= r.reqs[i-1].received) {
			warm = i
			break
		}
	}
	var lat []time.Duration
	for _, q := range r.reqs[warm:] {
		if q.failed == "" && q.reply != nil {
			lat = append(lat, time.Duration(q.received-q.arrival))
		}
	}
	if len(lat) == 0 {
		return nil, nil
	}
	fl := bench.FloorFrom(lat, kind, gap, time.Since(begin))
	return &fl, nil
}
