package model

import (
	"context"
	"testing"
)

// BenchmarkSimulate is the simulator's speed on one core: m = 30 cgroups,
// Pareto demand (shape 1.5, cap 5), u = 0.5, b = 2; it reports
// cgroup-periods per second (make bench). BenchmarkSimulateParallel runs one
// replica per core at once: near-linear scaling means the sum over cores.
func BenchmarkSimulate(b *testing.B) {
	p, d := benchDemand(b)
	b.ResetTimer()
	for i := range b.N {
		simulate(context.Background(), p, &d, uint64(i), 0, periods)
	}
	b.ReportMetric(float64(b.N)*periods*float64(p.Cgroups)/b.Elapsed().Seconds(), "cgroup-periods/s")
}

func BenchmarkSimulateParallel(b *testing.B) {
	p, d := benchDemand(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			simulate(context.Background(), p, &d, 1, 0, periods)
		}
	})
	b.ReportMetric(float64(b.N)*periods*float64(p.Cgroups)/b.Elapsed().Seconds(), "cgroup-periods/s")
}

// periods per replica: long enough that the table's set-up and the state's
// allocation do not count.
const periods = 100_000

func benchDemand(b *testing.B) (BurstParams, demand) {
	p := BurstParams{Cgroups: 30, Util: 0.5, Buffer: 2, Dist: Pareto, Shape: 1.5, Cap: 5}
	d, err := newDemand(p)
	if err != nil {
		b.Fatal(err)
	}
	return p, d
}
