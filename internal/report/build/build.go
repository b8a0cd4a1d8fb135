package build

import (
	"math"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/words"
)

// usage is the Usage of cpu (nil: not known), read from source, against
// the cgroup's own quota over periods (the change of its nr_periods). Run
// and latency share it, so that the key means the same in both.
func usage(cpu *time.Duration, source string, quota time.Duration, periods *uint64) report.Usage {
	if cpu == nil {
		return report.Usage{}
	}
	u := report.Usage{CPUMs: msPtr(cpu), Source: &source}
	if quota > 0 && periods != nil && *periods > 0 {
		q := float64(*cpu) / (float64(quota) * float64(*periods))
		u.QuotaUtilisation = &q
	}
	return u
}

// Input is everything a report is built from.
type Input struct {
	Config runspec.ClosedLoop
	Policy string
	Mode   string
	Cgroup bandwidth.Group
	Limits bandwidth.Limits
	Chain  []bandwidth.Level
	NumCPU int
	Result bench.Result
	Stat   bandwidth.CPUStat // the change over the run
	// Usage is the measured cgroup's CPU time over the same window (nil:
	// not known), UsageSource where it was read (SourceCgroup,
	// SourceProcess).
	Usage       *time.Duration
	UsageSource string
	Host        report.Host
	Warnings    []report.Warning // found by the caller; Build adds those of Check
	// Background is what else was read around the measured iterations.
	Background Background
	// Cpuset is what --cpuset asked (nil: nothing); CgroupCpuset the
	// slice's CPUs read back. NumCPU counts the CPUs only where the result
	// does not say which the workers could use (Result.AllowedCPUs).
	Cpuset       []int
	CgroupCpuset string
}

// Build computes the statistics and the model from the raw samples.
func Build(in Input) *report.Report {
	r := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Config: report.Config{
			Workload: in.Config.Workload, Batch: in.Config.Batch,
			Iterations: in.Config.Iterations, MinTimeMs: ms(in.Config.MinTime), Warmup: in.Config.Warmup, Workers: in.Config.Workers,
			GOMAXPROCS: in.Result.GOMAXPROCS, GOMAXPROCSPolicy: in.Policy,
			Cpuset: cpulist.Format(in.Cpuset), Pin: in.Config.Pin, OnePerCore: in.Config.OnePerCore,
		},
		Host:     in.Host,
		Warnings: append([]report.Warning{}, in.Warnings...),
	}
	workloadConfig(&r.Config, in.Config)

	// The CPUs the workers could use, as the workload process saw them
	// after its placement; the machine's where it did not say.
	allowed := in.NumCPU
	if n := len(in.Result.AllowedCPUs); n > 0 {
		allowed = n
	}
	eff := bandwidth.EffectiveCPUs(in.Chain, allowed)
	r.Cgroup = cgroupBlock(in.Mode, in.Cgroup, in.Limits, in.Chain, eff)
	r.Cgroup.Cpuset, r.Cgroup.AllowedCPUs = in.CgroupCpuset, cpulist.Format(in.Result.AllowedCPUs)

	n := in.Config.Workers
	perWorker := make([][]float64, n)
	cpuMs := make([]float64, n)
	minor, major := make([]uint64, n), make([]uint64, n)
	where := make([]placement, n)
	var cpuPerIter []float64
	for _, it := range in.Result.Iterations {
		r.DurationsMs = append(r.DurationsMs, ms(it.Wall))
		if len(it.Workers) > 0 {
			c := report.IterationCounters{}
			for _, s := range it.Workers {
				c.CPUMs += ms(s.CPU)
			}
			if st := it.Stat; st != nil {
				c.NrPeriods, c.NrThrottled = st.NrPeriods, st.NrThrottled
				if st.ThrottledTime != nil {
					t := ms(*st.ThrottledTime)
					c.ThrottledMs = &t
				}
			}
			r.CountersPerIteration = append(r.CountersPerIteration, c)
		}
		sum := 0.0
		for w, s := range it.Workers {
			perWorker[w] = append(perWorker[w], ms(s.Wall))
			cpuMs[w] += ms(s.CPU)
			sum += ms(s.CPU)
			minor[w] += s.FaultsMinor
			major[w] += s.FaultsMajor
			where[w].add(s)
		}
		cpuPerIter = append(cpuPerIter, sum)
	}
	kernel := len(in.Result.Iterations) > 0
	for _, p := range where {
		kernel = kernel && p.kernelOnly
	}
	r.MigrationsSource = "sampled"
	if kernel {
		r.MigrationsSource = "kernel"
	}
	s := stats.Summarize(r.DurationsMs)
	r.Stats = report.Stats{N: s.N, MeanMs: s.Mean, VarianceMs: s.Variance, StddevMs: s.Stddev, CoV: s.CoV,
		MinMs: s.Min, MaxMs: s.Max, P50Ms: s.P50, P90Ms: s.P90, P99Ms: s.P99}
	for w := range perWorker {
		ws := stats.Summarize(perWorker[w])
		profile := "fast"
		if in.Config.Slow(w) {
			profile = "slow"
		}
		p := where[w]
		r.Workers = append(r.Workers, report.Worker{ID: w, MeanMs: ws.Mean, MinMs: ws.Min, MaxMs: ws.Max, CPUMs: cpuMs[w],
			Profile: profile, Ops: p.ops, FaultsMinor: minor[w], FaultsMajor: major[w],
			CPUs: p.cpus.List(), Migrations: p.migrations(kernel),
			CtxSwitchesVoluntary: p.voluntary, CtxSwitchesInvoluntary: p.involuntary})
		if w < len(in.Result.PinnedCPUs) {
			cpu := in.Result.PinnedCPUs[w]
			r.Workers[w].PinnedCPU = &cpu
		}
	}
	r.Spread = spread(throughputs(where))
	r.Faults = faults(minor, major, len(in.Result.Iterations), in.Config.Batch*n)
	if spec, err := decl.Lookup(in.Config.Workload); err == nil && spec.BytesPerOp != nil && s.Mean > 0 {
		bytes := float64(spec.BytesPerOp(r.Config.Params)) * float64(in.Config.Batch*n)
		mbs := bytes / 1e6 / (s.Mean / 1000)
		r.MBPerS = &mbs
	}

	cpu := stats.Summarize(cpuPerIter).Mean
	cpus := eff
	if len(in.Result.PinnedCPUs) > 0 {
		// Pinned round robin, the busiest CPU sets the pace.
		cpus = math.Min(cpus, model.Pinned(in.Config.Workers, allowed))
	}
	par := model.Parallelism(in.Config.Workers, in.Result.GOMAXPROCS, cpus)
	r.Model = report.Model{CPUMsPerIteration: cpu, Parallelism: round(par, 6), ExpectedMs: model.ExpectedDuration(cpu, par)}
	if r.Model.ExpectedMs > 0 {
		r.Model.Ratio = s.Mean / r.Model.ExpectedMs
	}

	r.Throttling = throttling(in.Stat)
	r.Usage = usage(in.Usage, in.UsageSource, in.Limits.Quota, in.Stat.NrPeriods)
	r.Contention = Contend(in.Background, r.Throttling, ownCPU(r, in.Background), DefaultThresholds)
	r.Warnings = append(r.Warnings, Check(r, in.Background, DefaultThresholds)...)
	if m := in.Result.ThreadMoves; m > 0 {
		r.Warnings = append(r.Warnings, threadMoves(m, len(in.Result.Iterations)))
	}
	return r
}

// threadMoves is the warning of a lone worker that changed threads (see
// bench.RunAlone) in m of n measured iterations.
func threadMoves(m, n int) report.Warning {
	return report.Warn(report.KindWorkerMoved, "worker changed threads: the lone worker, which runs unlocked, was found on another OS thread in %d of %s; "+
		"their CPU time, faults and context switches are the whole workload process's (its Go runtime's threads too), their migrations the sampled ones: "+
		"run again, or with --gomaxprocs 2, under which every worker is locked to its thread", m, words.N(n, "iteration"))
}

// workloadConfig fills the chosen workload's own values (each default
// filled, as it ran), and the waits where there are any.
func workloadConfig(c *report.Config, d runspec.ClosedLoop) {
	c.Params = d.Params
	if spec, err := decl.Lookup(d.Workload); err == nil {
		if ps, err := spec.Complete(d.Params); err == nil {
			c.Params = ps
		}
	}
	if d.Sleep > 0 {
		c.SleepMs, c.SleepEvery, c.SlowWorkers = ms(d.Sleep), max(d.SleepEvery, 1), d.SlowWorkers
	}
}

// faults are the workers' page faults per iteration and per operation.
func faults(minor, major []uint64, iterations, opsPerIteration int) report.Faults {
	var f report.Faults
	if iterations == 0 {
		return f
	}
	for w := range minor {
		f.Minor += float64(minor[w])
		f.Major += float64(major[w])
	}
	f.Minor /= float64(iterations)
	f.Major /= float64(iterations)
	if opsPerIteration > 0 {
		f.MinorPerOp, f.MajorPerOp = f.Minor/float64(opsPerIteration), f.Major/float64(opsPerIteration)
	}
	return f
}

// cgroupBlock is the report's cgroup: the limits as the kernel took them,
// and the ancestors' that bind.
func cgroupBlock(mode string, cg bandwidth.Group, limits bandwidth.Limits, chain []bandwidth.Level, eff float64) report.Cgroup {
	c := report.Cgroup{
		Mode: mode, Version: cg.Version, Path: cg.Path, Dir: cg.Dir,
		QuotaUs: -1, BurstUs: micros(limits.Burst), EffectiveCPUs: round(eff, 6),
	}
	if limits.Period > 0 {
		p := micros(limits.Period)
		c.PeriodUs = &p
	}
	if limits.Quota > 0 {
		c.QuotaUs = micros(limits.Quota)
	}
	if mode == "created" && len(chain) > 1 {
		c.ParentWeight = chain[1].Weight
	}
	for _, l := range chain[min(1, len(chain)):] {
		if l.Limits.Quota > 0 {
			c.Levels = append(c.Levels, report.Level{Dir: l.Dir, PeriodUs: micros(l.Limits.Period), QuotaUs: micros(l.Limits.Quota)})
		}
	}
	return c
}

// throttling is the change of cpu.stat over the measured window.
func throttling(st bandwidth.CPUStat) report.Throttling {
	t := report.Throttling{NrPeriods: st.NrPeriods, NrThrottled: st.NrThrottled, NrBursts: st.NrBursts,
		ThrottledMs: msPtr(st.ThrottledTime), BurstMs: msPtr(st.BurstTime)}
	if st.NrPeriods != nil && st.NrThrottled != nil && *st.NrPeriods > 0 {
		f := float64(*st.NrThrottled) / float64(*st.NrPeriods)
		t.ThrottledFraction = &f
	}
	return t
}

func ms(d time.Duration) float64   { return float64(d) / float64(time.Millisecond) }
func micros(d time.Duration) int64 { return int64(d / time.Microsecond) }

func msPtr(d *time.Duration) *float64 {
	if d == nil {
		return nil
	}
	v := ms(*d)
	return &v
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
