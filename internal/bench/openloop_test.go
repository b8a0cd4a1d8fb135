package bench

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// The open loop's bookkeeping runs inside a synctest bubble: time is fake
// and moves only when every goroutine waits, so service times and stalls
// are exact and nothing really sleeps.

// idle is a beforeStart that returns once every worker waits for a
// request, as they all do by the first arrival on a real machine.
func idle() error {
	synctest.Wait()
	return nil
}

// scripted serves request i in service(i) of (fake) time.
func scripted(service func(i int) time.Duration) openLoop {
	return openLoop{clock: goClock{}, serve: func(ctx context.Context, _ clock, i int) error {
		return goClock{}.SleepUntil(ctx, time.Now().Add(service(i)))
	}}
}

func constant(d time.Duration) func(int) time.Duration {
	return func(int) time.Duration { return d }
}

// every is n arrivals gap apart from 0.
func every(gap time.Duration, n int) []time.Duration {
	s := make([]time.Duration, n)
	for i := range s {
		s[i] = time.Duration(i) * gap
	}
	return s
}

// stallingClock wakes a worker at until from any sleep meant to end in
// [from, until): a throttled or descheduled worker.
type stallingClock struct {
	goClock
	from, until time.Time
}

func (c stallingClock) SleepUntil(ctx context.Context, t time.Time) error {
	if !t.Before(c.from) && t.Before(c.until) {
		t = c.until
	}
	return c.goClock.SleepUntil(ctx, t)
}

// A worker stalled for 200 ms in its wait takes the overdue requests at
// once, each stamped with its scheduled time: their latencies include the
// stall (the first waited 200 ms for its worker, then 1 ms of service),
// instead of the 1 ms to 21 ms a sender-stamped clock would report.
func TestStalledWorkerLatencyIncludesTheStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		e := scripted(constant(time.Millisecond))
		e.clock = stallingClock{from: start.Add(100 * time.Millisecond), until: start.Add(300 * time.Millisecond)}
		res, err := e.run(t.Context(), every(10*time.Millisecond, 50), 1, 100, idle)
		require.NoError(t, err)

		assert.Equal(t, 50, res.Offered)
		assert.Equal(t, 50, res.Completed)
		assert.Zero(t, res.Dropped)
		assert.Equal(t, 200*time.Millisecond, res.Late, "the worst late dispatch is the stall")
		// Requests 10..30 (due 100..300 ms) are sent at 300 ms and served
		// one after another: request k completes at 291 ms + k ms − 9k ms
		// after it was due. 31 and 32 wait for that backlog; the rest take
		// their 1 ms.
		assert.Equal(t, 201*time.Millisecond, res.Max)
		assert.Equal(t, time.Millisecond, res.Min)
		assert.Equal(t, 2373*time.Millisecond/50, res.Mean)
		assert.InEpsilon(t, time.Millisecond, res.P50, 0.001)
		assert.InEpsilon(t, 156*time.Millisecond, res.P90, 0.001, "the 45th of 50 is request 15")
		assert.InEpsilon(t, 201*time.Millisecond, res.P99, 0.001)
		assert.Equal(t, 491*time.Millisecond, res.Elapsed, "from the first arrival to the last completion")
	})
}

// Who is served and who is dropped, worked out by hand on a timeline of
// arrivals 10 ms apart.
func TestQueueAccounting(t *testing.T) {
	for _, tc := range []struct {
		name               string
		workers, queue     int
		service            func(int) time.Duration
		completed, dropped int
		max, sum, elapsed  time.Duration
	}{
		{
			// 0 served 0–27; 1, 2 wait; 3 finds two waiting: dropped; 1 served
			// 27–54, 4 and 5 dropped; 2 served 54–81, 6 waits, 7 and 8 dropped;
			// 3 served 81–108, 9 waits; 6 served 108–135, 9 135–162.
			name: "queue of 2 overflows", workers: 1, queue: 2, service: constant(27 * time.Millisecond),
			completed: 6, dropped: 4, max: 78 * time.Millisecond,
			sum: (27 + 44 + 61 + 78 + 75 + 72) * time.Millisecond, elapsed: 162 * time.Millisecond,
		},
		{
			// Even requests find the worker idle and take 15 ms; odd ones
			// find it busy and nowhere to wait.
			name: "queue 0: busy means dropped", workers: 1, queue: 0, service: constant(15 * time.Millisecond),
			completed: 5, dropped: 5, max: 15 * time.Millisecond, sum: 5 * 15 * time.Millisecond, elapsed: 95 * time.Millisecond,
		},
		{
			name: "a second worker takes what one would drop", workers: 2, queue: 0, service: constant(15 * time.Millisecond),
			completed: 10, dropped: 0, max: 15 * time.Millisecond, sum: 10 * 15 * time.Millisecond, elapsed: 105 * time.Millisecond,
		},
		{
			name: "a huge queue allocates no more than the schedule", workers: 1, queue: 1 << 40, service: constant(15 * time.Millisecond),
			completed: 10, dropped: 0, max: 60 * time.Millisecond,
			sum: (15 + 20 + 25 + 30 + 35 + 40 + 45 + 50 + 55 + 60) * time.Millisecond, elapsed: 150 * time.Millisecond,
		},
		{
			// Head-of-line blocking: one slow request delays those queued behind it.
			name: "a slow request delays the next ones", workers: 1, queue: 10,
			service: func(i int) time.Duration {
				return map[int]time.Duration{0: 35 * time.Millisecond}[i] + time.Millisecond
			},
			completed: 10, dropped: 0, max: 36 * time.Millisecond,
			sum: (36 + 27 + 18 + 9 + 6*1) * time.Millisecond, elapsed: 91 * time.Millisecond,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				res, err := scripted(tc.service).run(t.Context(), every(10*time.Millisecond, 10), tc.workers, tc.queue, idle)
				require.NoError(t, err)
				assert.Equal(t, 10, res.Offered)
				assert.Equal(t, tc.completed, res.Completed)
				assert.Equal(t, tc.dropped, res.Dropped)
				assert.Equal(t, tc.max, res.Max)
				assert.Equal(t, tc.sum/time.Duration(tc.completed), res.Mean)
				assert.Equal(t, tc.elapsed, res.Elapsed)
				assert.Len(t, res.WorkerCPU, tc.workers)
			})
		})
	}
}

// Requests that arrive at the same instant (--arrivals once): each idle
// worker takes one, the queue holds what it can of the rest, the others
// are dropped, as a generator sending them one after another would have
// found it.
func TestSimultaneousArrivals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res, err := scripted(constant(5*time.Millisecond)).run(t.Context(), make([]time.Duration, 10), 2, 3, idle)
		require.NoError(t, err)
		assert.Equal(t, 10, res.Offered)
		assert.Equal(t, 5, res.Completed, "two at once, then the three queued")
		assert.Equal(t, 5, res.Dropped)
		assert.Equal(t, 15*time.Millisecond, res.Max, "the last queued waited for two services before its own")
		assert.Zero(t, res.Late)
	})
}

// The caller's pause before the first arrival (reading the kernel's
// counters) is not the workload's: the schedule starts after it.
func TestBeforeStartIsOutsideTheSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		res, err := scripted(constant(time.Millisecond)).run(t.Context(), every(10*time.Millisecond, 5), 1, 0,
			func() error { calls++; time.Sleep(time.Second); return nil })
		require.NoError(t, err)
		assert.Equal(t, 1, calls)
		assert.Equal(t, time.Millisecond, res.Max)
		assert.Zero(t, res.Late)
	})
}

func TestBeforeStartErrorStopsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		served := 0
		e := openLoop{clock: goClock{}, serve: func(context.Context, clock, int) error { served++; return nil }}
		_, err := e.run(t.Context(), every(time.Millisecond, 5), 2, 5, func() error { return boom })
		assert.ErrorIs(t, err, boom)
		assert.Zero(t, served)
	})
}

// A run ends at ctx's end, however long its schedule and its requests.
func TestOpenLoopStopsWhenCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := scripted(constant(time.Hour)).run(ctx, every(time.Millisecond, 1_000_000), 2, 10, nil)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 50*time.Millisecond, time.Since(start))
	})
}

// A request that fails fails the run; nothing is reported as measured.
func TestServeErrorFailsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		e := openLoop{clock: goClock{}, serve: func(_ context.Context, _ clock, i int) error {
			if i == 3 {
				return boom
			}
			return nil
		}}
		_, err := e.run(t.Context(), every(time.Millisecond, 10), 1, 10, nil)
		assert.ErrorIs(t, err, boom)
	})
}

// A failed request stops the other workers too: the run ends with its
// error instead of serving the rest of the schedule.
func TestServeErrorStopsEveryWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		start := time.Now()
		served := 0
		var mu sync.Mutex
		e := openLoop{clock: goClock{}, serve: func(ctx context.Context, _ clock, i int) error {
			mu.Lock()
			served++
			mu.Unlock()
			if i == 3 {
				return boom
			}
			return goClock{}.SleepUntil(ctx, time.Now().Add(time.Millisecond))
		}}
		_, err := e.run(t.Context(), every(10*time.Millisecond, 1000), 3, 10, nil)
		assert.ErrorIs(t, err, boom)
		assert.NotErrorIs(t, err, context.Canceled, "the cause, not how the others learnt of it")
		assert.Equal(t, 30*time.Millisecond, time.Since(start))
		assert.Less(t, served, 10)
	})
}

func TestEmptyScheduleIsAnEmptyResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res, err := scripted(constant(time.Millisecond)).run(t.Context(), nil, 3, 0, nil)
		require.NoError(t, err)
		assert.Zero(t, res.Offered+res.Completed+res.Dropped)
		assert.Zero(t, res.Max)
		assert.Len(t, res.WorkerCPU, 3)
	})
}

// The encoded histogram holds every response time, so results can be
// merged or re-plotted later; the result crosses the pipe as JSON.
func TestHistogramRoundTrips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res, err := scripted(func(i int) time.Duration { return time.Duration(i+1) * time.Millisecond }).
			run(t.Context(), every(100*time.Millisecond, 20), 2, 0, idle)
		require.NoError(t, err)
		b, err := json.Marshal(res)
		require.NoError(t, err)
		var back LatencyResult
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, res, back)

		h, err := hdrhistogram.Decode([]byte(back.Histogram))
		require.NoError(t, err)
		assert.EqualValues(t, 20, h.TotalCount())
		assert.InEpsilon(t, 20*time.Millisecond, time.Duration(h.Max()), 0.001)
		assert.InEpsilon(t, time.Millisecond, time.Duration(h.Min()), 0.001)
	})
}

// The real thing, briefly: real clock, calibrated work, threads' CPU
// clocks. Only lower bounds on time, which a busy machine cannot break.
func TestRunOpenLoopShapesTheResult(t *testing.T) {
	o := runspec.OpenLoop{Rate: 200, Arrivals: runspec.ArrivalsFixed, Work: 500 * time.Microsecond, Wait: 200 * time.Microsecond,
		Workers: 2, Queue: 20, Duration: 100 * time.Millisecond, GOMAXPROCS: 2}
	calls := 0
	res, err := RunOpenLoop(context.Background(), o, func() error { calls++; return nil })
	require.NoError(t, err)
	assert.Equal(t, 1, calls)
	assert.Equal(t, 2, res.GOMAXPROCS)
	assert.Equal(t, 20, res.Offered)
	assert.Equal(t, res.Offered, res.Completed+res.Dropped)
	assert.Positive(t, res.Calibration.IterationsPerMs)
	assert.GreaterOrEqual(t, res.Min, 700*time.Microsecond, "no response is faster than its work and wait")
	assert.True(t, res.Min <= res.P50 && res.P50 <= res.P90 && res.P90 <= res.P99 && res.P99 <= res.P999 && res.P999 <= res.Max)
	assert.GreaterOrEqual(t, res.Elapsed, 95*time.Millisecond+700*time.Microsecond)
	require.Len(t, res.WorkerCPU, 2)
	// The work is CPU time, whatever the wall clock did: 20 × 0.5 ms.
	cpu := res.WorkerCPU[0] + res.WorkerCPU[1]
	assert.Greater(t, cpu, time.Duration(float64(res.Completed)*0.7*float64(o.Work)))
	assert.Less(t, cpu, 3*time.Duration(res.Completed)*o.Work)
	// The floor was measured first, through the same path.
	require.NotNil(t, res.Floor)
	f := res.Floor
	assert.Equal(t, floorWakeups, f.Wakeups)
	assert.True(t, 0 < f.P50 && f.P50 <= f.P99 && f.P99 <= f.P999 && f.P999 <= f.Max)
	assert.Equal(t, 5*time.Millisecond, f.Interval, "the run's gap between arrivals")
	assert.GreaterOrEqual(t, f.Took, time.Duration(floorWakeups-1)*f.Interval)
}

// NoFloor skips the floor: nil, and the run still served its schedule.
func TestRunOpenLoopWithoutTheFloor(t *testing.T) {
	o := runspec.OpenLoop{Rate: 200, Arrivals: runspec.ArrivalsFixed, Work: 100 * time.Microsecond, Workers: 1, Queue: 20,
		Duration: 50 * time.Millisecond, GOMAXPROCS: 1, NoFloor: true}
	res, err := RunOpenLoop(context.Background(), o, nil)
	require.NoError(t, err)
	assert.Nil(t, res.Floor)
	assert.Equal(t, 10, res.Offered)
	assert.Equal(t, res.Offered, res.Completed+res.Dropped)
}

// Workers waiting for arrivals an hour away end with the run's context,
// at once.
func TestCancelEndsSleepingWorkers(t *testing.T) {
	e := openLoop{clock: fineClock{}, serve: func(context.Context, clock, int) error { return nil }}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.run(ctx, []time.Duration{0, time.Hour, time.Hour + time.Second}, 2, 10, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 500*time.Millisecond)
}

func TestRunOpenLoopStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := RunOpenLoop(ctx, runspec.OpenLoop{Rate: 10, Work: time.Hour, Workers: 1, Duration: time.Hour}, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
}

// With spans, every completed request's scheduled arrival and completion
// come back, from the schedule's start: here a stall of the worker
// shows in the spans as in the latencies, and nothing without spans.
func TestOpenLoopSpans(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		e := scripted(constant(time.Millisecond))
		e.spans = true
		e.clock = stallingClock{from: start.Add(100 * time.Millisecond), until: start.Add(300 * time.Millisecond)}
		res, err := e.run(t.Context(), every(10*time.Millisecond, 50), 1, 100, idle)
		require.NoError(t, err)
		require.Len(t, res.Requests, 50)
		assert.NotZero(t, res.StartMono)
		byArrival := map[time.Duration]RequestSpan{}
		for _, r := range res.Requests {
			byArrival[r.Arrival] = r
			assert.GreaterOrEqual(t, r.Done, r.Arrival)
		}
		// One worker: every request is its thread's.
		tid := byArrival[0].TID
		assert.Equal(t, int32(gettid()) != 0, tid != 0, "the worker's thread where the OS has thread ids")
		for _, r := range res.Requests {
			assert.Equal(t, tid, r.TID)
		}
		assert.Equal(t, RequestSpan{Arrival: 0, Done: time.Millisecond, TID: tid}, byArrival[0])
		assert.Equal(t, RequestSpan{Arrival: 100 * time.Millisecond, Done: 301 * time.Millisecond, TID: tid}, byArrival[100*time.Millisecond],
			"due at 100 ms, taken at 300 ms when the worker woke, done 1 ms later")

		e.spans = false
		res, err = e.run(t.Context(), every(10*time.Millisecond, 5), 1, 100, idle)
		require.NoError(t, err)
		assert.Empty(t, res.Requests)
	})
}

// The request path allocates nothing (so a run's window needs no
// collection): counted from the first request to the last, whether they
// wait on their worker's timer (50 µs apart, all of it in the kernel;
// 2.5 ms apart, on a Go timer first), in the queue (all at once), or in
// --wait after their work, with spans or without.
func TestRequestPathAllocatesNothing(t *testing.T) {
	cases := []struct {
		n         int
		gap, wait time.Duration
	}{
		{1000, 50 * time.Microsecond, 0},
		{1000, 0, 0},
		{100, fineLead + 500*time.Microsecond, 0},
		{100, 0, fineLead + time.Millisecond},
	}
	for _, spans := range []bool{false, true} {
		for _, c := range cases {
			var first, last runtime.MemStats
			e := openLoop{clock: fineClock{}, spans: spans, serve: func(ctx context.Context, clk clock, i int) error {
				switch i {
				case 0:
					runtime.ReadMemStats(&first)
				case c.n - 1:
					runtime.ReadMemStats(&last)
				}
				if c.wait > 0 {
					return clk.SleepUntil(ctx, clk.Now().Add(c.wait))
				}
				return nil
			}}
			res, err := e.run(context.Background(), every(c.gap, c.n), 2, c.n, nil)
			require.NoError(t, err)
			require.Equal(t, c.n, res.Completed)
			// A few to spare for the runtime's own and the test
			// framework's, none per request.
			assert.Less(t, last.Mallocs-first.Mallocs, uint64(20), "spans %v, %+v", spans, c)
		}
	}
}
