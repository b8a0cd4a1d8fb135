package usage

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
)

// BenchmarkSamplerOverhead samples this process's own cgroup for real, for
// one second per op, and reports what it cost: the sampler's CPU time as a
// percentage of one CPU and per reading, and how late its readings came
// (mean, p99, max). Two ways: "held", sample's (the counter held open,
// cgroup.UsageFile, and the timerfd clock, PollClock), and "reopened" (the
// counter opened for each reading, Go's timer: NewClock), which is what
// sample did before and latency's peak sampler still does. ns/op is the
// second it was asked to run and says nothing. The whole command beside a
// Python loop is BenchmarkSamplerCost in test/integration.
func BenchmarkSamplerOverhead(b *testing.B) {
	// UsageCgroup is what is measured: its error fails the benchmark
	// rather than hide as a skip (issue 32).
	cg, err := cgroup.Host{Root: "/"}.UsageCgroup("")
	require.NoError(b, err, "this process's own usage counter")
	for _, interval := range []time.Duration{100 * time.Millisecond, 10 * time.Millisecond} {
		for _, way := range []string{"held", "reopened"} {
			b.Run(interval.String()+"/"+way, func(b *testing.B) {
				var counter Counter = cg
				var clock Clock = NewClock()
				if way == "held" {
					f, err := cg.OpenUsage()
					if err != nil {
						b.Fatal(err)
					}
					defer f.Close()
					c, err := OpenClock()
					if err != nil {
						b.Fatal(err)
					}
					defer c.Close()
					counter, clock = f, c
				}
				var cpu, wall time.Duration
				var readings int
				var f File
				for range b.N {
					rec := Sampler{Counter: counter, Clock: clock, Interval: interval, Duration: time.Second, CPU: host.ProcessCPU}.Run(context.Background())
					if rec.Err != nil || !rec.CPUKnown {
						b.Fatalf("sampling: %v (CPU time known: %v)", rec.Err, rec.CPUKnown)
					}
					f = Build(rec, Meta{Target: 0.01})
					cpu += rec.CPU
					wall += time.Duration(f.DurationMs * float64(time.Millisecond))
					readings += len(rec.Trace.Samples)
				}
				// Lateness of the last op: ops are alike, and b.N is 1 at the
				// default -benchtime.
				b.ReportMetric(100*float64(cpu)/float64(wall), "cpu-%")
				b.ReportMetric(float64(cpu.Microseconds())/float64(readings), "cpu-µs/reading")
				b.ReportMetric(f.Sampler.LateUs.Mean, "late-mean-µs")
				b.ReportMetric(f.Sampler.LateUs.P99, "late-p99-µs")
				b.ReportMetric(f.Sampler.LateUs.Max, "late-max-µs")
			})
		}
	}
}
