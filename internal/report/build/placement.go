package build

import (
	"slices"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/stats"
)

// placement is one worker's samples summed over the measured iterations.
type placement struct {
	ops                    int
	wall                   time.Duration
	cpus                   bench.CPUSet
	kernelMigrations       uint64 // the kernel's count, where kernelOnly
	cpuChanges             uint64 // between consecutive samples
	kernelOnly             bool   // every sample had the kernel's count
	samples                int
	voluntary, involuntary uint64
}

func (p *placement) add(s bench.WorkerSample) {
	if p.samples == 0 {
		p.kernelOnly = true
	}
	p.samples++
	p.ops += s.Ops
	p.wall += s.Wall
	for _, c := range s.CPUs {
		p.cpus.Add(c)
	}
	p.kernelMigrations += s.Migrations
	p.cpuChanges += s.CPUChanges
	p.kernelOnly = p.kernelOnly && s.KernelMigrations
	p.voluntary += s.CtxVoluntary
	p.involuntary += s.CtxInvoluntary
}

// migrations are the kernel's count when every worker has it for every
// iteration (kernel), the sampled changes otherwise: one source for all
// workers, so that they compare.
func (p *placement) migrations(kernel bool) uint64 {
	if kernel {
		return p.kernelMigrations
	}
	return p.cpuChanges
}

// throughputs are the workers' operations per second of their own wall
// time; 0 for a worker with no wall time.
func throughputs(ps []placement) []float64 {
	t := make([]float64, len(ps))
	for i, p := range ps {
		if p.wall > 0 {
			t[i] = float64(p.ops) / p.wall.Seconds()
		}
	}
	return t
}

// spread compares throughputs. Without a worker that did anything there
// is nothing uneven to show: 1 and 0, as for one worker.
func spread(throughputs []float64) report.Spread {
	if len(throughputs) == 0 || slices.Max(throughputs) <= 0 {
		return report.Spread{SlowestToFastest: 1}
	}
	s := stats.Summarize(throughputs)
	return report.Spread{SlowestToFastest: s.Min / s.Max, CoV: s.CoV}
}
