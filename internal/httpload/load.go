package httpload

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/throttlebench/throttlebench/internal/quietgc"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Config is what to send and how.
type Config struct {
	// Request is what is sent, as a plan holds it.
	runspec.Request
	// Clock schedules the arrivals; nil is a NewFineClock.
	Clock Clock
	// During a run, the process's threads also have a scheduler slice of
	// 100 µs (shortSlice), restored after.
	//
	// KeepGC leaves the garbage collector as it is during the run.
	// Without it, Run collects before the first arrival and keeps the
	// collector quiet until the last request ends, unless the process
	// grows by more than 256 MiB (quietgc.Start): a process-wide setting,
	// restored after.
	KeepGC bool
}

// Outcome is how a request ended.
type Outcome uint8

const (
	// Cancelled: the run's context ended before the request did (or
	// before it was sent).
	Cancelled Outcome = iota
	Response          // a whole response came; Request.Status is its code
	Timeout           // Config.Timeout passed first
	ConnError         // connecting, writing or reading failed (refused, reset, closed)
	Failed            // anything else: a malformed response, a bad request
)

var outcomeNames = [...]string{"cancelled", "response", "timeout", "connection error", "failed"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", o)
}

// Request is one request of the schedule, at the same index in
// Result.Requests: its scheduled arrival, when it was sent (it waited for a
// connection in between when every one was busy) and when it ended, from
// the run's t0 (Result.StartMono on CLOCK_MONOTONIC). 32 bytes: a run may
// hold millions.
type Request struct {
	Scheduled time.Duration
	Start     time.Duration
	End       time.Duration
	Status    uint16 // the HTTP status code with Outcome Response
	Outcome   Outcome
}

// Latency is a request's response time: End minus Scheduled.
func (r Request) Latency() time.Duration { return r.End - r.Scheduled }

// Counts tallies the outcomes. Every request of the schedule is in exactly
// one of Classes (by status/100, 1xx to 5xx; Classes[0] is codes below 100
// or above 599), Timeouts, ConnErrors, Failed and Cancelled.
type Counts struct {
	OK         int    // 2xx: Classes[2]
	Classes    [6]int // responses by status class
	Timeouts   int
	ConnErrors int
	Failed     int
	Cancelled  int
	// Statuses counts the responses by status code, for a rule that
	// accepts some codes of a class and not others (--accept-status).
	Statuses map[int]int
}

// HTTPErrors is the responses that were not 2xx.
func (c Counts) HTTPErrors() int { return c.Responses() - c.OK }

// Responses is every request that got a whole response.
func (c Counts) Responses() int {
	n := 0
	for _, v := range c.Classes {
		n += v
	}
	return n
}

// Total is every request counted: the schedule's length.
func (c Counts) Total() int {
	return c.Responses() + c.Timeouts + c.ConnErrors + c.Failed + c.Cancelled
}

// Result is what a run measured.
type Result struct {
	Counts
	// Hist holds the response time (end minus scheduled arrival, ns) of
	// every request that got a whole response, whatever its status; the
	// ones that did not are counted in Counts and kept in Requests.
	Hist *hdrhistogram.Histogram
	// Requests is every request of the schedule, at its index.
	Requests []Request
	// Start is the schedule's t0; StartMono the same instant on
	// CLOCK_MONOTONIC, the clock of the kernel's throttle events.
	Start     time.Time
	StartMono int64
	// Elapsed runs from t0 to the last request's end.
	Elapsed time.Duration
	// Late is the most a worker woke after the arrival it waited for (the
	// dispatch's own lateness; response times include it).
	Late time.Duration
	// Warm is how many connections were open before the first arrival.
	Warm int
}

// Quantile is the q-th percentile (0-100) of Hist in ns, within 0.1%.
func (r Result) Quantile(q float64) time.Duration {
	if r.Hist == nil {
		return 0
	}
	return time.Duration(r.Hist.ValueAtQuantile(q))
}

// schedSlice is the scheduler slice of the process's threads during a run
// (shortSlice), the least the kernel takes.
const schedSlice = 100 * time.Microsecond

// The histogram's range: 1 ns to an hour at 3 significant digits, as the
// open loop's; a slower response is recorded as an hour.
const (
	histLowest  = 1
	histHighest = int64(time.Hour)
	histDigits  = 3
)

// Run sends a request at each arrival of sched (offsets from the start,
// ascending) to cfg.URL and returns when every request has ended. When
// ctx ends first, the requests still to come or in flight are counted
// Cancelled and Run returns the result so far with ctx's error.
func Run(ctx context.Context, cfg Config, sched []time.Duration) (Result, error) {
	tgt, err := newTarget(cfg)
	if err != nil {
		return Result{}, err
	}
	conns := max(cfg.Connections, 1)
	clk := cfg.Clock
	if clk == nil {
		clk = NewFineClock()
	}
	res := Result{Requests: make([]Request, len(sched))}
	for i, s := range sched {
		res.Requests[i] = Request{Scheduled: s}
	}
	d := &dispatcher{sched: sched, clock: clk}
	workers := make([]*worker, conns)
	var wg sync.WaitGroup
	for i := range workers {
		workers[i] = &worker{tgt: tgt, reqs: res.Requests}
		// Every connection open before the first arrival, as many as the
		// target accepts: one it refuses shows later, as the requests' own
		// connection errors.
		wg.Go(func() { workers[i].warm(ctx) })
	}
	wg.Wait()
	for _, w := range workers {
		if w.conn != nil {
			res.Warm++
		}
	}
	// A blocked read or write ends at once when ctx does.
	stop := context.AfterFunc(ctx, func() {
		for _, w := range workers {
			w.interrupt()
		}
	})
	defer stop()

	if !cfg.KeepGC {
		defer quietgc.Start()()
	}
	defer shortSlice(schedSlice)()
	d.t0 = clk.Now()
	res.Start, res.StartMono = d.t0, monotonic()
	for _, w := range workers {
		wg.Go(func() { w.loop(ctx, d) })
	}
	wg.Wait()

	for _, w := range workers {
		res.Late = max(res.Late, w.late)
		w.close()
	}
	// The histogram from the requests' records, once the run is over:
	// nothing to record on the request path, and one histogram (half a
	// MB at this range and precision) rather than one per connection.
	res.Hist = hdrhistogram.New(histLowest, histHighest, histDigits)
	res.Statuses = map[int]int{}
	for _, r := range res.Requests {
		res.Elapsed = max(res.Elapsed, r.End)
		switch r.Outcome {
		case Response:
			_ = res.Hist.RecordValue(min(max(int64(r.Latency()), histLowest), histHighest)) // in range by construction
			c := int(r.Status) / 100
			if c > 5 {
				c = 0
			}
			res.Classes[c]++
			res.Statuses[int(r.Status)]++
		case Timeout:
			res.Timeouts++
		case ConnError:
			res.ConnErrors++
		case Failed:
			res.Failed++
		default:
			res.Cancelled++
		}
	}
	res.OK = res.Classes[2]
	return res, ctx.Err()
}

// dispatcher hands the schedule's arrivals to the workers, in order. Its
// lock is held by the one idle worker waiting for the next arrival: it
// claims it, sleeps until it, sends the request and lets go, so the next
// idle worker claims the one after. An arrival that comes due while every
// worker is busy is claimed by the first to come free, at once: its wait
// is in its time.
type dispatcher struct {
	sched []time.Duration
	clock Clock
	t0    time.Time // set before the workers start

	mu   sync.Mutex
	next int // the first arrival not yet claimed
}

func (w *worker) loop(ctx context.Context, d *dispatcher) {
	for {
		d.mu.Lock()
		i := d.next
		if i == len(d.sched) || ctx.Err() != nil {
			d.mu.Unlock()
			return
		}
		d.next++
		due := d.t0.Add(d.sched[i])
		if err := d.clock.SleepUntil(ctx, due); err != nil {
			d.mu.Unlock()
			return // the arrival stays Cancelled
		}
		start := d.clock.Now()
		if lag := start.Sub(due); lag > w.late && i > 0 && d.sched[i] > d.sched[i-1] {
			// Only an arrival that was waited for: one claimed when
			// already due had waited for a worker, not for a timer.
			w.late = lag
		}
		// The next idle worker takes the lock once this request is on
		// the wire, not before: waking it wakes a thread, which on a VM
		// costs the waker tens of µs (an IPI), paid before the send.
		status, out := w.do(ctx, start, &d.mu)
		end := d.clock.Now()
		r := &w.reqs[i]
		r.Start, r.End, r.Status, r.Outcome = start.Sub(d.t0), end.Sub(d.t0), status, out
	}
}
