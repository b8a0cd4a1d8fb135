package usage

import (
	"context"
	"testing"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
)

// BenchmarkSamplerOverhead samples this process's own cgroup for real, for
// one second per op, and reports what it cost: the sampler's CPU time as a
// percentage of one CPU, and how late its readings came (mean, p99, max).
// ns/op is the second it was asked to run and says nothing.
func BenchmarkSamplerOverhead(b *testing.B) {
	cg, err := cgroup.Host{Root: "/"}.UsageCgroup("")
	if err != nil {
		b.Skipf("no usage counter for this process's cgroup: %v", err)
	}
	for _, interval := range []time.Duration{100 * time.Millisecond, 10 * time.Millisecond} {
		b.Run(interval.String(), func(b *testing.B) {
			var cpu, wall time.Duration
			var f File
			for range b.N {
				rec := Sampler{Counter: cg, Clock: NewClock(), Interval: interval, Duration: time.Second, CPU: host.ProcessCPU}.Run(context.Background())
				if rec.Err != nil || !rec.CPUKnown {
					b.Fatalf("sampling: %v (CPU time known: %v)", rec.Err, rec.CPUKnown)
				}
				f = Build(rec, Meta{Target: 0.01})
				cpu += rec.CPU
				wall += time.Duration(f.DurationMs * float64(time.Millisecond))
			}
			// Lateness of the last op: ops are alike, and b.N is 1 at the
			// default -benchtime.
			b.ReportMetric(100*float64(cpu)/float64(wall), "cpu-%")
			b.ReportMetric(f.Sampler.LateUs.Mean, "late-mean-µs")
			b.ReportMetric(f.Sampler.LateUs.P99, "late-p99-µs")
			b.ReportMetric(f.Sampler.LateUs.Max, "late-max-µs")
		})
	}
}
