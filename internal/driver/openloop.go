package driver

import (
	"cmp"
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/throttlebench/throttlebench/internal/host"
)

// OpenLoop configures an open-loop run. It crosses the child pipe as JSON.
// Its values are checked by the config layer; RunOpenLoop only guards
// against hanging or panicking on edge values.
type OpenLoop struct {
	Rate     float64 `json:"rate"`     // mean requests per second
	Arrivals string  `json:"arrivals"` // one of ArrivalKinds
	// On and Off shape ArrivalsOnOff: a cycle is On+Off long, and its
	// requests (Rate × cycle) are spread evenly over On.
	On  time.Duration `json:"on_ns"`
	Off time.Duration `json:"off_ns"`
	// Work is the CPU time a request needs, realised as calibrated loop
	// iterations so that a throttled stretch lengthens it in wall time as
	// it would real work; Wait is a sleep after it, like waiting on I/O.
	Work time.Duration `json:"work_ns"`
	Wait time.Duration `json:"wait_ns"`
	// Workers serve requests, each on its own OS thread. Fewer than 1 is
	// read as 1.
	Workers int `json:"workers"`
	// Queue is how many requests may wait for a worker, besides the ones
	// being served. 0 means none: a request that arrives while every worker
	// is busy is dropped. Dropped requests are counted, never hidden.
	Queue    int           `json:"queue"`
	Duration time.Duration `json:"duration_ns"` // how long arrivals are generated
	Seed     uint64        `json:"seed"`        // decides a poisson schedule
	// Count is ArrivalsOnce's number of requests, all at the start.
	Count int `json:"count,omitempty"`
	// Instances, when set, serves the schedule with instances in slices of
	// their own, dispatched by the parent, rather than with Workers in one
	// slice (latency --instances).
	Instances *Instances `json:"instances,omitempty"`
	// GOMAXPROCS: > 0 sets it; 0 keeps the Go runtime's own cgroup-aware default.
	GOMAXPROCS int `json:"gomaxprocs"`
	// Spans asks for every completed request's scheduled arrival and
	// completion (LatencyResult.Requests), to tie throttle events to the
	// requests they slowed (--trace).
	Spans bool `json:"spans,omitempty"`
}

// RequestSpan is one completed request: its scheduled arrival and its
// completion, from the first scheduled instant t0 (LatencyResult.StartMono
// on CLOCK_MONOTONIC). Short keys: a run may carry a million of them.
type RequestSpan struct {
	Arrival time.Duration `json:"a"`
	Done    time.Duration `json:"d"`
}

// LatencyResult is what an open-loop run measured. A response time is a
// request's completion minus its SCHEDULED arrival, so time the generator
// spent stalled counts (the coordinated-omission trap). Mean, Min and Max
// are exact; the percentiles come from an HDR histogram and are within
// 0.1% (3 significant digits).
type LatencyResult struct {
	Offered   int `json:"offered"`   // requests whose arrival came, served or not
	Completed int `json:"completed"` // served to the end
	Dropped   int `json:"dropped"`   // found the queue full; Offered = Completed + Dropped
	// Elapsed runs from the first scheduled arrival to the last completion.
	Elapsed time.Duration `json:"elapsed_ns"`
	Mean    time.Duration `json:"mean_ns"`
	Min     time.Duration `json:"min_ns"`
	P50     time.Duration `json:"p50_ns"`
	P90     time.Duration `json:"p90_ns"`
	P99     time.Duration `json:"p99_ns"`
	P999    time.Duration `json:"p999_ns"`
	Max     time.Duration `json:"max_ns"`
	// Histogram is every response time in ns, HdrHistogram's standard V2
	// compressed base64 encoding (hdrhistogram.Decode reads it back), to
	// merge or re-plot later.
	Histogram   string      `json:"histogram_hdr"`
	Calibration Calibration `json:"calibration"`
	GOMAXPROCS  int         `json:"gomaxprocs"` // the value in force during the run
	// WorkerCPU is each worker thread's CPU time over the run.
	WorkerCPU []time.Duration `json:"worker_cpu_ns"`
	// Late is the most the generator sent a request after its scheduled
	// arrival: timer slack when small, a stall of the generator (throttled
	// too) when large. Latencies include it either way.
	Late time.Duration `json:"late_ns"`
	// ProcessCPU is the process's CPU time when the last request was done
	// (0 when unknown): the parent reads the start from outside, but the
	// end only the child can, as it exits once it has replied.
	ProcessCPU time.Duration `json:"process_cpu_ns"`
	// StartMono is CLOCK_MONOTONIC at the schedule's t0, the clock the
	// kernel stamps throttle events with; Requests (with OpenLoop.Spans)
	// every completed request's span from t0, in no particular order.
	StartMono int64         `json:"start_mono_ns,omitempty"`
	Requests  []RequestSpan `json:"requests,omitempty"`
}

// The histogram's range: 1 ns, so the floor of a few µs keeps its 3
// digits too, up to an hour; a slower response is recorded as an hour
// (Max stays exact).
const (
	histLowest  = 1
	histHighest = int64(time.Hour)
	histDigits  = 3
)

// RunOpenLoop calibrates the CPU loop, calls beforeStart (when not nil: the
// caller takes the kernel's counters then), then sends requests on
// Schedule(o) to o.Workers workers, each a goroutine locked to its own OS
// thread, and returns when the last request is served. When ctx ends first
// it stops and returns ctx.Err().
func RunOpenLoop(ctx context.Context, o OpenLoop, beforeStart func() error) (LatencyResult, error) {
	gmp := ApplyGOMAXPROCS(o.GOMAXPROCS)
	cal := Calibrate()
	clk := fineClock{}
	serve := func(ctx context.Context, _ int) error {
		if err := work(ctx, o.Work, cal.IterationsPerMs); err != nil {
			return err
		}
		if o.Wait > 0 {
			return clk.SleepUntil(ctx, clk.Now().Add(o.Wait))
		}
		return nil
	}
	res, err := openLoop{clock: clk, serve: serve, spans: o.Spans}.run(ctx, Schedule(o), o.Workers, o.Queue, beforeStart)
	if err != nil {
		return LatencyResult{}, err
	}
	res.Calibration, res.GOMAXPROCS = cal, gmp
	res.ProcessCPU, _ = host.ProcessCPU() // unknown stays 0
	return res, nil
}

// openLoop is the run without the machine: tests give it a fake clock and
// scripted service times.
type openLoop struct {
	clock clock
	// serve performs the request at index i of the schedule.
	serve func(ctx context.Context, i int) error
	spans bool // record every request's span (OpenLoop.Spans)
}

// request is one arrival on its way to a worker, stamped with when it was
// scheduled, not when it was sent.
type request struct {
	index int
	due   time.Time
	t0    time.Time // the schedule's start, for its span
}

func (e openLoop) run(ctx context.Context, sched []time.Duration, workers, queue int, beforeStart func() error) (LatencyResult, error) {
	workers = max(workers, 1)
	// No more can wait than there are requests: a huge Queue costs nothing.
	q := make(chan request, min(max(queue, 0), len(sched)))
	tallies := make([]*tally, workers)
	var wg, ready sync.WaitGroup
	ready.Add(workers)
	for i := range tallies {
		tallies[i] = newTally()
		if e.spans {
			// Room for every request, allocated now: nothing grows on
			// the request path.
			tallies[i].spans = make([]RequestSpan, 0, len(sched))
		}
		wg.Go(func() { e.work(ctx, q, tallies[i], ready.Done) })
	}
	// Workers on their threads before the first arrival: with no queue, a
	// request that came before its worker would be dropped for nothing.
	ready.Wait()

	if beforeStart != nil {
		if err := beforeStart(); err != nil {
			close(q)
			wg.Wait()
			return LatencyResult{}, err
		}
	}
	t0 := e.clock.Now()
	var res LatencyResult
	res.StartMono = Monotonic()
	for i, off := range sched {
		due := t0.Add(off)
		now := e.clock.Now()
		if now.Before(due) {
			if e.clock.SleepUntil(ctx, due) != nil {
				break
			}
			now = e.clock.Now()
		}
		// A generator that woke late sends everything overdue at once,
		// each request still stamped with its own scheduled time.
		res.Late = max(res.Late, now.Sub(due))
		res.Offered++
		select {
		case q <- request{index: i, due: due, t0: t0}:
		default:
			res.Dropped++
		}
	}
	close(q)
	wg.Wait()

	var errs []error
	for _, t := range tallies {
		errs = append(errs, t.err)
	}
	if err := errors.Join(errs...); err != nil || ctx.Err() != nil {
		return LatencyResult{}, cmp.Or(ctx.Err(), err)
	}
	first := t0
	if len(sched) > 0 {
		first = t0.Add(sched[0])
	}
	if err := summarise(&res, tallies, first); err != nil {
		return LatencyResult{}, err
	}
	return res, nil
}

// work is one worker: it serves requests until the queue is closed and
// drained, or ctx ends.
func (e openLoop) work(ctx context.Context, q <-chan request, t *tally, ready func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := threadCPU()
	ready()
	for r := range q {
		if t.err = e.serve(ctx, r.index); t.err != nil {
			return
		}
		t.record(e.clock.Now(), r.due, r.t0)
	}
	t.cpu = threadCPU() - c0
}

// tally is one worker's record, merged with the others' at the end so
// that recording takes no lock.
type tally struct {
	hist     *hdrhistogram.Histogram
	n        int
	sumNs    float64 // float: an int64 of ns overflows at 10⁷ requests of 15 minutes
	min, max time.Duration
	last     time.Time // the latest completion
	cpu      time.Duration
	err      error
	spans    []RequestSpan // with openLoop.spans: room for every request
}

func newTally() *tally {
	h := hdrhistogram.New(histLowest, histHighest, histDigits)
	// Reset writes every count, so the pages are faulted in now rather
	// than during the run, where their cost would be charged to the quota.
	h.Reset()
	return &tally{hist: h}
}

func (t *tally) record(done, due, t0 time.Time) {
	lat := max(done.Sub(due), 0)
	if t.spans != nil {
		t.spans = append(t.spans, RequestSpan{Arrival: due.Sub(t0), Done: done.Sub(t0)})
	}
	_ = t.hist.RecordValue(min(int64(lat), histHighest)) // in range by construction
	if t.n == 0 || lat < t.min {
		t.min = lat
	}
	t.max = max(t.max, lat)
	t.n++
	t.sumNs += float64(lat)
	if done.After(t.last) {
		t.last = done
	}
}

// summarise merges the workers' tallies into res.
func summarise(res *LatencyResult, tallies []*tally, first time.Time) error {
	all := tallies[0].hist
	var sum float64
	var last time.Time
	for i, t := range tallies {
		if i > 0 {
			all.Merge(t.hist)
		}
		res.WorkerCPU = append(res.WorkerCPU, t.cpu)
		res.Requests = append(res.Requests, t.spans...)
		if t.n == 0 {
			continue
		}
		if res.Completed == 0 || t.min < res.Min {
			res.Min = t.min
		}
		res.Max = max(res.Max, t.max)
		res.Completed += t.n
		sum += t.sumNs
		if t.last.After(last) {
			last = t.last
		}
	}
	if res.Completed > 0 {
		res.Mean = time.Duration(sum / float64(res.Completed))
		res.Elapsed = last.Sub(first)
	}
	// A percentile is its bucket's highest value, up to 0.1% above the
	// values in it: kept within the exact extremes, a table never shows a
	// p50 above the max.
	pct := func(q float64) time.Duration {
		return min(max(time.Duration(all.ValueAtQuantile(q)), res.Min), res.Max)
	}
	res.P50, res.P90, res.P99, res.P999 = pct(50), pct(90), pct(99), pct(99.9)
	enc, err := all.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	res.Histogram = string(enc)
	return err
}

// Onoff says whether the schedule is on/off, where On and Off mean something.
func (o OpenLoop) Onoff() bool { return o.Arrivals == ArrivalsOnOff }
