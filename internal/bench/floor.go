package bench

import (
	"context"
	"math"
	"time"

	"github.com/throttlebench/throttlebench/internal/quietgc"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Floor is the smallest response time the open loop can report on this
// machine, in these limits: requests that need no work, arriving as the
// run's do (Arrivals, Interval apart on average), sent through the same
// path as a run's (an idle worker's own absolute timer, the completion
// stamp). It is the first link of every response time, cyclictest's
// wake-up latency plus what the harness adds; a percentile of a run that
// is not well above the floor's says more about the machine's timers than
// about the workload.
type Floor struct {
	Wakeups  int           `json:"wakeups"`
	Arrivals string        `json:"arrivals"`    // fixed or poisson
	Interval time.Duration `json:"interval_ns"` // the mean gap
	P50      time.Duration `json:"p50_ns"`
	P99      time.Duration `json:"p99_ns"`
	P999     time.Duration `json:"p999_ns"`
	Max      time.Duration `json:"max_ns"`
	Took     time.Duration `json:"took_ns"` // wall time, workers' start included
}

// The floor's calibration: enough wake-ups for a p99 resting on a few of
// them (its p99.9 is nearly the max), spaced as the run's arrivals are
// (FloorSchedule): a CPU that has idled longer takes longer to wake, here
// 23 µs after 1 ms and 36-64 µs after 5 ms at the median, so a floor
// taken at another spacing would not be the run's. 200 wake-ups take
// 0.2 s at 1000 requests/s and above, 1 s at 200/s and below.
const (
	floorWakeups = 200
	floorGapMin  = time.Millisecond
	floorGapMax  = 5 * time.Millisecond
)

// FloorSchedule is the floor's arrivals for a run of o: floorWakeups of
// them, poisson when o's are (from o's seed), else fixed, their mean gap
// that of o's arrivals while they arrive (an on/off schedule's during its
// on stretch) kept within [floorGapMin, floorGapMax].
func FloorSchedule(o runspec.OpenLoop) (sched []time.Duration, kind string, gap time.Duration) {
	rate := o.Rate
	if o.Onoff() && o.On > 0 && o.Off > 0 {
		rate *= float64(o.On+o.Off) / float64(o.On)
	}
	gap = floorGapMin
	if o.Arrivals != runspec.ArrivalsOnce && rate > 0 && !math.IsInf(rate, 0) {
		gap = min(max(time.Duration(float64(time.Second)/rate), floorGapMin), floorGapMax)
	}
	if o.Arrivals == runspec.ArrivalsPoisson {
		// Three times the mean length: 200 exponential gaps add up to
		// more than that about never (the sum's deviation is 14 gaps).
		s := runspec.Schedule(runspec.OpenLoop{Rate: float64(time.Second) / float64(gap), Arrivals: runspec.ArrivalsPoisson, Duration: 3 * floorWakeups * gap, Seed: o.Seed})
		return s[:min(len(s), floorWakeups)], runspec.ArrivalsPoisson, gap
	}
	sched = make([]time.Duration, floorWakeups)
	for i := range sched {
		sched[i] = time.Duration(i) * gap
	}
	return sched, runspec.ArrivalsFixed, gap
}

// measureFloor runs the floor's schedule for o through the open loop with
// workers workers serving requests that do nothing, the collector quiet
// as in a run's window.
func measureFloor(ctx context.Context, clk clock, workers int, o runspec.OpenLoop) (Floor, error) {
	begin := time.Now()
	sched, kind, gap := FloorSchedule(o)
	var restore func()
	e := openLoop{clock: clk, serve: func(context.Context, clock, int) error { return nil }}
	res, err := e.run(ctx, sched, workers, len(sched), func() error { restore = quietgc.Start(); return nil })
	if restore != nil {
		restore()
	}
	if err != nil {
		return Floor{}, err
	}
	return Floor{Wakeups: res.Completed, Arrivals: kind, Interval: gap, P50: res.P50, P99: res.P99, P999: res.P999, Max: res.Max,
		Took: time.Since(begin)}, nil
}

// FloorFrom is the floor of a path measured elsewhere (latency
// --instances: the parent's dispatch to an instance and back), from its
// floor requests' response times, summarised as the open loop's own are
// (an HDR histogram's percentiles, the exact max). took is how long the
// measurement took.
func FloorFrom(lat []time.Duration, kind string, gap, took time.Duration) Floor {
	f := Floor{Wakeups: len(lat), Arrivals: kind, Interval: gap, Took: took}
	if len(lat) == 0 {
		return f
	}
	t := newTally()
	var at time.Time // any instant: a response time is all a tally keeps
	for _, l := range lat {
		t.record(at.Add(l), at, at)
	}
	f.P50, f.P99, f.P999, f.Max = percentile(t.hist, 50, t.min, t.max), percentile(t.hist, 99, t.min, t.max),
		percentile(t.hist, 99.9, t.min, t.max), t.max
	return f
}
