package bench

import (
	"runtime"
	"testing"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload"
)

// spinCost is the least time n steps of spin took over a few tries: the
// cost of the work without the interruptions a busy machine adds.
func spinCost(n uint64, reps int) time.Duration {
	best := time.Duration(1 << 62)
	for range 5 {
		start := time.Now()
		for range reps {
			workload.Spin(n)
		}
		best = min(best, time.Since(start)/time.Duration(reps))
	}
	return best
}

// BenchmarkPlacementSampling is what the closed loop adds to every
// operation to know where its worker ran: one getcpu and the bookkeeping
// (the last CPU, the bitmap, the count of changes). ns/op is that cost;
// the metrics put it against one spin operation at its default 1000 units
// and against a single unit. Issue 12 asks for less than 1% of an
// operation; the benchmark fails above that for the default one.
func BenchmarkPlacementSampling(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	op := spinCost(1000*workload.SpinUnit, 10)
	unit := spinCost(workload.SpinUnit, 1000)

	var p placement
	p.reset()
	for b.Loop() {
		p.observe(getCPU())
	}
	per := float64(b.Elapsed()) / float64(b.N)
	overhead := 100 * per / float64(op)
	b.ReportMetric(float64(op)/1e3, "spin-op-µs")
	b.ReportMetric(overhead, "overhead-%-of-spin-op")
	b.ReportMetric(100*per/float64(unit), "overhead-%-of-spin-unit")
	if overhead >= 1 {
		b.Errorf("placement sampling costs %.0f ns, %.2f%% of a default spin operation (%v): issue 12 allows < 1%%", per, overhead, op)
	}
}
