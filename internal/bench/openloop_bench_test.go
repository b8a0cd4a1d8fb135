package bench

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/throttlebench/throttlebench/internal/runspec"
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
// requests 5 ms apart (never queued), each op one request, served by one
// worker, and by four sharing two Ps (GOMAXPROCS 2), where a worker must
// leave its P to the others while it waits on its Go timer and hold it only
// for the last 2 ms in the kernel (fineClock). The figures that matter
// are the metrics: min, median and p99 of the response time over the
// work, the floor under every latency a run reports (the worker's own
// timer wake-up and the completion stamp), and the floor the run's
// calibration measured. Run it on an idle machine;
// BenchmarkLatencyFloorPeers (test/integration) sets the binary's beside
// cyclictest's.
func BenchmarkFloor(b *testing.B) {
	for _, c := range []struct {
		work             time.Duration
		workers, threads int
	}{{0, 1, 0}, {time.Millisecond, 1, 0}, {time.Millisecond, 4, 2}} {
		b.Run(fmt.Sprintf("work=%v/workers=%d", c.work, c.workers), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
			const gap = 5 * time.Millisecond
			o := runspec.OpenLoop{Rate: float64(time.Second / gap), Arrivals: runspec.ArrivalsFixed, Work: c.work,
				Workers: c.workers, Queue: 100, Duration: time.Duration(b.N) * gap, GOMAXPROCS: c.threads}
			res, err := RunOpenLoop(context.Background(), o, nil)
			if err != nil {
				b.Fatal(err)
			}
			if res.Completed != b.N {
				b.Fatalf("%d of %d requests completed", res.Completed, b.N)
			}
			over := func(d time.Duration) float64 { return float64(d-c.work) / float64(time.Microsecond) }
			b.ReportMetric(over(res.Min), "min-µs-over-work")
			b.ReportMetric(over(res.P50), "p50-µs-over-work")
			b.ReportMetric(over(res.P99), "p99-µs-over-work")
			b.ReportMetric(float64(res.Late)/float64(time.Microsecond), "late-µs")
			b.ReportMetric(float64(res.Floor.P50)/float64(time.Microsecond), "floor-p50-µs")
			b.ReportMetric(float64(res.Floor.P99)/float64(time.Microsecond), "floor-p99-µs")
		})
	}
}
