package bench

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/quietgc"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// RequestSpan is one completed request: its scheduled arrival and its
// completion, from the first scheduled instant t0 (LatencyResult.StartMono
// on CLOCK_MONOTONIC). Short keys: a run may carry a million of them.
type RequestSpan struct {
	Arrival time.Duration `json:"a"`
	Done    time.Duration `json:"d"`
	// TID is the worker thread that served it (gettid: the kernel's id
	// in the child's PID namespace), whose switches split its time by
	// cause (--trace).
	TID int32 `json:"t,omitempty"`
}

// LatencyResult is what an open-loop run measured. A response time is a
// request's completion minus its SCHEDULED arrival, so time a worker
// spent stalled before taking it counts (the coordinated-omission trap). Mean, Min and Max
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
	// Late is the most an idle worker woke after the scheduled arrival it
	// was waiting for (the open loop's dispatch; there is no separate
	// generator): timer slack when small, a throttled or preempted thread
	// when large. Latencies include it either way.
	Late time.Duration `json:"late_ns"`
	// ProcessCPU is the process's CPU time when the last request was done
	// (0 when unknown): the parent reads the start from outside, but the
	// end only the child can, as it exits once it has replied.
	ProcessCPU time.Duration `json:"process_cpu_ns"`
	// StartMono is CLOCK_MONOTONIC at the schedule's t0, the clock the
	// kernel stamps throttle events with; Requests (with runspec.OpenLoop.Spans)
	// every completed request's span from t0, in no particular order.
	StartMono int64         `json:"start_mono_ns,omitempty"`
	Requests  []RequestSpan `json:"requests,omitempty"`
	// Floor is the harness's own floor, measured before the calibration
	// (measureFloor); nil where it was not measured.
	Floor *Floor `json:"floor,omitempty"`
}

// The histogram's range: 1 ns, so the floor of a few µs keeps its 3
// digits too, up to an hour; a slower response is recorded as an hour
// (Max stays exact).
const (
	histLowest  = 1
	histHighest = int64(time.Hour)
	histDigits  = 3
)

// RunOpenLoop measures the harness's own floor (measureFloor), calibrates
// the CPU loop, calls beforeStart (when not nil: the caller takes the
// kernel's counters then), then serves the requests of runspec.Schedule(o) with
// o.Workers workers, each a goroutine locked to its own OS thread, and
// returns when the last request is served. The garbage collector runs
// before the first arrival and not again until the last request is done
// (quietgc.Start). When ctx ends first it stops and returns ctx.Err().
func RunOpenLoop(ctx context.Context, o runspec.OpenLoop, beforeStart func() error) (LatencyResult, error) {
	gmp := ApplyGOMAXPROCS(o.GOMAXPROCS)
	clk := fineClock{}
	// The floor first: it costs almost no CPU, and in a slice with a small
	// quota the CPU loop's calibration would leave it throttled.
	var floor *Floor
	if !o.NoFloor {
		f, err := measureFloor(ctx, clk, o.Workers, o)
		if err != nil {
			return LatencyResult{}, err
		}
		floor = &f
	}
	cal := Calibrate()
	serve := func(ctx context.Context, clk clock, _ int) error {
		if err := work(ctx, o.Work, cal.IterationsPerMs); err != nil {
			return err
		}
		if o.Wait > 0 {
			return clk.SleepUntil(ctx, clk.Now().Add(o.Wait))
		}
		return nil
	}
	var restore func()
	defer func() {
		if restore != nil {
			restore()
		}
	}()
	start := func() error {
		restore = quietgc.Start()
		if beforeStart != nil {
			return beforeStart()
		}
		return nil
	}
	res, err := openLoop{clock: clk, serve: serve, spans: o.Spans}.run(ctx, runspec.Schedule(o), o.Workers, o.Queue, start)
	if err != nil {
		return LatencyResult{}, err
	}
	res.Calibration, res.GOMAXPROCS, res.Floor = cal, gmp, floor
	res.ProcessCPU, _ = host.ProcessCPU() // unknown stays 0
	return res, nil
}

// openLoop is the run without the machine: tests give it a fake clock and
// scripted service times.
type openLoop struct {
	clock clock
	// serve performs the request at index i of the schedule, on the
	// worker's own copy of the clock (own).
	serve func(ctx context.Context, clk clock, i int) error
	spans bool // record every request's span (runspec.OpenLoop.Spans)
}

// run serves sched with workers workers. There is no generator: an idle
// worker takes the next arrival itself and sleeps on its own thread until
// its scheduled instant (clock.SleepUntil), so a request reaches its worker
// with one timer wake-up and no hand-off between threads. Arrivals that
// come due while every worker is busy are queued (up to queue) or dropped
// by the first worker to come free, in the order and with the outcome a
// generator sending each at its instant into a FIFO would have had
// (dispatcher.take). A response time runs from the scheduled arrival.
func (e openLoop) run(ctx context.Context, sched []time.Duration, workers, queue int, beforeStart func() error) (LatencyResult, error) {
	workers = max(workers, 1)
	// A failed request ends the run for every worker, with its error.
	inner, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	// No more can wait than there are requests: a huge Queue costs nothing.
	d := &dispatcher{sched: sched, backlog: newRing(min(max(queue, 0), len(sched)))}
	tallies := make([]*tally, workers)
	begin := make(chan struct{})
	var wg, ready sync.WaitGroup
	ready.Add(workers)
	for i := range tallies {
		tallies[i] = newTally()
		if e.spans {
			// Room for every request, allocated now: nothing grows on
			// the request path.
			tallies[i].spans = make([]RequestSpan, 0, len(sched))
		}
		wg.Go(func() { e.work(inner, fail, d, tallies[i], ready.Done, begin) })
	}
	// Workers on their threads before the first arrival: with no queue, a
	// request that came before its worker would be dropped for nothing.
	ready.Wait()

	if beforeStart != nil {
		if err := beforeStart(); err != nil {
			d.aborted = true
			close(begin)
			wg.Wait()
			return LatencyResult{}, err
		}
	}
	// Written before begin is closed, read by the workers after.
	d.t0 = e.clock.Now()
	var res LatencyResult
	res.StartMono = Monotonic()
	close(begin)
	wg.Wait()

	// The caller's end first; else the first request that failed (the
	// others stopped because of it).
	if err := ctx.Err(); err != nil {
		return LatencyResult{}, err
	}
	if inner.Err() != nil {
		return LatencyResult{}, context.Cause(inner)
	}
	for _, t := range tallies {
		res.Late = max(res.Late, t.late)
	}
	res.Offered, res.Dropped = d.offered, d.dropped
	first := d.t0
	if len(sched) > 0 {
		first = d.t0.Add(sched[0])
	}
	if err := summarise(&res, tallies, first); err != nil {
		return LatencyResult{}, err
	}
	return res, nil
}

// work is one worker: it takes requests from d until the schedule is
// done, a request fails or ctx ends.
func (e openLoop) work(ctx context.Context, fail context.CancelCauseFunc, d *dispatcher, t *tally, ready func(), begin <-chan struct{}) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer preciseTimers()()
	t.tid = int32(gettid())
	c0 := threadCPU()
	ready()
	<-begin
	if d.aborted {
		return
	}
	clk := own(e.clock)
	// Idle from the schedule's start; then from each completion.
	idleSince := d.t0
	for {
		j, ok := d.take(idleSince)
		if !ok || ctx.Err() != nil {
			break
		}
		if j.idle {
			// This worker is the one idle at j's arrival: it waits for
			// the instant itself. How late it woke is the dispatch's
			// lateness (timer slack, or a throttled or preempted thread).
			if clk.SleepUntil(ctx, j.due) != nil {
				break
			}
			t.late = max(t.late, clk.Now().Sub(j.due))
		}
		if err := e.serve(ctx, clk, j.index); err != nil {
			fail(err)
			return
		}
		idleSince = clk.Now()
		t.record(idleSince, j.due, d.t0)
	}
	t.cpu = threadCPU() - c0
}

// dispatcher hands the schedule's arrivals to the workers. Its lock is
// taken once per request, by the worker that takes it, never on the way
// from a timer to a request.
type dispatcher struct {
	sched   []time.Duration
	t0      time.Time // set before the workers begin
	aborted bool      // set before the workers begin: serve nothing

	mu      sync.Mutex
	next    int  // the first arrival not yet taken, queued or dropped
	backlog ring // arrivals that found every worker busy, oldest first
	offered int
	dropped int
}

// job is a request a worker takes: idle when it will sleep until due
// first, as the one worker idle at that arrival.
type job struct {
	index int
	due   time.Time
	idle  bool
}

// take is called by a worker that has had nothing to do since idleSince
// (its last completion; the schedule's start before its first request).
// First the arrivals that came due before then, while every worker was
// busy (an idle worker would have claimed them in advance), are offered,
// in order, to the queue: the queue only shrinks in take, after this
// step, so each one sees the queue as it was at its arrival, as if a
// generator had sent it then. Then the worker serves the oldest queued
// arrival, or, with none, claims the next one and waits for it (at once,
// when it came due since idleSince). false: nothing is left.
func (d *dispatcher) take(idleSince time.Time) (job, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for d.next < len(d.sched) && d.due(d.next).Before(idleSince) {
		d.offered++
		if !d.backlog.push(d.next) {
			d.dropped++
		}
		d.next++
	}
	if i, ok := d.backlog.pop(); ok {
		return job{index: i, due: d.due(i)}, true
	}
	if d.next == len(d.sched) {
		return job{}, false
	}
	i := d.next
	d.next++
	d.offered++
	return job{index: i, due: d.due(i), idle: true}, true
}

func (d *dispatcher) due(i int) time.Time { return d.t0.Add(d.sched[i]) }

// ring is a FIFO of arrival indices of fixed capacity, allocated up front.
type ring struct {
	buf        []int
	head, size int
}

func newRing(capacity int) ring { return ring{buf: make([]int, capacity)} }

// push adds i at the tail; false when the ring is full.
func (r *ring) push(i int) bool {
	if r.size == len(r.buf) {
		return false
	}
	r.buf[(r.head+r.size)%len(r.buf)] = i
	r.size++
	return true
}

// pop takes the head; false when the ring is empty.
func (r *ring) pop() (int, bool) {
	if r.size == 0 {
		return 0, false
	}
	i := r.buf[r.head]
	r.head = (r.head + 1) % len(r.buf)
	r.size--
	return i, true
}

// tally is one worker's record, merged with the others' at the end so
// that recording takes no lock.
type tally struct {
	hist     *hdrhistogram.Histogram
	n        int
	sumNs    float64 // float: an int64 of ns overflows at 10⁷ requests of 15 minutes
	min, max time.Duration
	last     time.Time     // the latest completion
	late     time.Duration // the most an idle wait overran its arrival
	cpu      time.Duration
	spans    []RequestSpan // with openLoop.spans: room for every request
	tid      int32         // the worker's thread, for its spans
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
		t.spans = append(t.spans, RequestSpan{Arrival: due.Sub(t0), Done: done.Sub(t0), TID: t.tid})
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
	res.P50, res.P90, res.P99, res.P999 = percentile(all, 50, res.Min, res.Max), percentile(all, 90, res.Min, res.Max),
		percentile(all, 99, res.Min, res.Max), percentile(all, 99.9, res.Min, res.Max)
	enc, err := all.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	res.Histogram = string(enc)
	return err
}

// percentile is h's q-th percentile: its bucket's highest value, up to
// 0.1% above the values in it, kept within the exact extremes lo and hi so
// that a table never shows a p50 above the max.
func percentile(h *hdrhistogram.Histogram, q float64, lo, hi time.Duration) time.Duration {
	return min(max(time.Duration(h.ValueAtQuantile(q)), lo), hi)
}
