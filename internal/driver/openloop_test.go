package driver

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The open loop's bookkeeping runs inside a synctest bubble: time is fake
// and moves only when every goroutine waits, so service times and stalls
// are exact and nothing really sleeps.

// scripted serves request i in service(i) of (fake) time.
func scripted(service func(i int) time.Duration) openLoop {
	return openLoop{clock: realClock{}, serve: func(ctx context.Context, i int) error {
		return realClock{}.SleepUntil(ctx, time.Now().Add(service(i)))
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

// stallingClock wakes the generator at until from any sleep meant to end
// in [from, until): a throttled or descheduled generator.
type stallingClock struct {
	realClock
	from, until time.Time
}

func (c stallingClock) SleepUntil(ctx context.Context, t time.Time) error {
	if !t.Before(c.from) && t.Before(c.until) {
		t = c.until
	}
	return c.realClock.SleepUntil(ctx, t)
}

// A generator stalled for 200 ms sends the overdue requests at once, each
// stamped with its scheduled time: their latencies include the stall (the
// first waited 200 ms for the generator, then 1 ms of service), instead of
// the 1 ms to 21 ms a sender-stamped clock would report.
func TestStalledGeneratorLatencyIncludesTheStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		e := scripted(constant(time.Millisecond))
		e.clock = stallingClock{from: start.Add(100 * time.Millisecond), until: start.Add(300 * time.Millisecond)}
		res, err := e.run(t.Context(), every(10*time.Millisecond, 50), 1, 100, nil)
		require.NoError(t, err)

		assert.Equal(t, 50, res.Offered)
		assert.Equal(t, 50, res.Completed)
		assert.Zero(t, res.Dropped)
		assert.Equal(t, 200*time.Millisecond, res.Late, "the generator's worst lateness is the stall")
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
			name: "queue 0: busy means dropped", workers: 1, queue: 0, service: constant(15 * time.Millisecond),
			completed: 5, dropped: 5, max: 15 * time.Millisecond, sum: 5 * 15 * time.Millisecond, elapsed: 105 * time.Millisecond,
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
				res, err := scripted(tc.service).run(t.Context(), every(10*time.Millisecond, 10), tc.workers, tc.queue, nil)
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
