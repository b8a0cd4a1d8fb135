package driver

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkRecord is the bookkeeping a worker adds to each request: a
// clock reading and the record into its histogram and running figures.
func BenchmarkRecord(b *testing.B) {
	t := newTally()
	due := time.Now()
	for b.Loop() {
		t.record(time.Now(), due, due)
	}
}

// BenchmarkFloor is the smallest response time the harness can report:
// one worker, requests 5 ms apart (never queued), each op one request. The
// figures that matter are the metrics: min, median and p99 of the response
// time, the floor under every latency a run reports, timer wake-up and
// hand-off to the worker's thread included. Run it on an idle machine.
func BenchmarkFloor(b *testing.B) {
	for _, w := range []time.Duration{0, time.Millisecond} {
		b.Run(fmt.Sprintf("work=%v", w), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
			const gap = 5 * time.Millisecond
			o := OpenLoop{Rate: float64(time.Second / gap), Arrivals: ArrivalsFixed, Work: w,
				Workers: 1, Queue: 100, Duration: time.Duration(b.N) * gap}
			res, err := RunOpenLoop(context.Background(), o, nil)
			if err != nil {
				b.Fatal(err)
			}
			if res.Completed != b.N {
				b.Fatalf("%d of %d requests completed", res.Completed, b.N)
			}
			over := func(d time.Duration) float64 { return float64(d-w) / float64(time.Microsecond) }
			b.ReportMetric(over(res.Min), "min-µs-over-work")
			b.ReportMetric(over(res.P50), "p50-µs-over-work")
			b.ReportMetric(over(res.P99), "p99-µs-over-work")
			b.ReportMetric(float64(res.Late)/float64(time.Microsecond), "late-µs")
		})
	}
}
