// Package report defines the JSON result of a run (the contract documented in
// the README), builds it from a run's samples and writes it as JSON. Text
// and the Go benchmark format are internal/render's.
package report

import (
	"cmp"
	"math"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/driver"
	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/topology"
	"github.com/throttlebench/throttlebench/internal/workload"
)

// SchemaVersion changes whenever a key changes meaning or goes away.
const SchemaVersion = 1

// Report is the result of one run. Keys say their unit.
type Report struct {
	SchemaVersion int       `json:"schema_version"`
	Config        Config    `json:"config"`
	Cgroup        Cgroup    `json:"cgroup"`
	Host          Host      `json:"host"`
	DurationsMs   []float64 `json:"durations_ms"`
	Stats         Stats     `json:"stats"`
	Workers       []Worker  `json:"workers"`
	// Spread is how evenly the workers progressed: their throughputs
	// side by side.
	Spread Spread `json:"spread"`
	// MigrationsSource says what workers[].migrations count: "kernel",
	// the scheduler's own count (se.nr_migrations in
	// /proc/<pid>/task/<tid>/sched, kernels with CONFIG_SCHED_DEBUG), or
	// "sampled", the changes between consecutive CPUs sampled at operation
	// boundaries, a lower bound, where the kernel's count could not be read
	// for every worker and iteration.
	MigrationsSource string `json:"migrations_source"`
	Faults           Faults `json:"faults"`
	// MBPerS is memtouch's throughput: bytes touched per iteration (buffer
	// × batch × workers) over the mean iteration, in 10⁶ bytes per second;
	// absent for other workloads. With --sleep the slow workers' sleeps
	// are inside the iteration: it is then the rate the work got done,
	// waits included, not the rate of touching memory.
	MBPerS     *float64   `json:"mb_per_s,omitempty"`
	Throttling Throttling `json:"throttling"`
	Usage      Usage      `json:"usage"`
	Model      Model      `json:"model"`
	Warnings   []string   `json:"warnings"`
}

type Config struct {
	Workload string `json:"workload"`
	// Each workload's own parameters, present with it only: bcrypt's cost,
	// spin's units, memtouch's buffer and memory.
	Cost        int    `json:"cost,omitempty"`
	Units       int    `json:"units,omitempty"`
	BufferBytes int    `json:"buffer_bytes,omitempty"`
	Memory      string `json:"memory,omitempty"`
	// CPU with waits; 0 all three when there are no sleeps.
	SleepMs     float64 `json:"sleep_ms"`
	SleepEvery  int     `json:"sleep_every"`
	SlowWorkers int     `json:"slow_workers"`
	Batch       int     `json:"batch"`
	// Iterations is what was asked, the least that ran; stats.n is how many
	// ran, more when MinTimeMs asked for more.
	Iterations int     `json:"iterations"`
	MinTimeMs  float64 `json:"min_time_ms"` // --min-time; 0 = off
	Warmup     int     `json:"warmup"`
	Workers    int     `json:"workers"`
	GOMAXPROCS int     `json:"gomaxprocs"` // the value in force during the run
	// GOMAXPROCSPolicy is what was asked: "workers", "runtime" or a number.
	GOMAXPROCSPolicy string `json:"gomaxprocs_policy"`
	// Placement as asked: the slice's cpuset in the kernel's list format
	// ("" for none), the workers pinned one to a CPU, one per core.
	Cpuset     string `json:"cpuset"`
	Pin        bool   `json:"pin"`
	OnePerCore bool   `json:"one_per_core"`
}

type Cgroup struct {
	Mode          string  `json:"mode"` // "created" or "current"
	Version       int     `json:"version"`
	Path          string  `json:"path"` // as the kernel names it in /proc/<pid>/cgroup
	Dir           string  `json:"dir"`  // its directory when the run looked
	PeriodUs      *int64  `json:"period_us"`
	QuotaUs       int64   `json:"quota_us"` // -1 = unlimited
	BurstUs       int64   `json:"burst_us"`
	EffectiveCPUs float64 `json:"effective_cpus"`
	Levels        []Level `json:"levels,omitempty"`
	// Cpuset is the slice's CPUs as the kernel took them, read back ("" for
	// a slice without --cpuset, and in current mode). AllowedCPUs are the
	// CPUs the workers could run on (their cpuset, a container's, taskset's,
	// one per core), as the workload process saw them; absent where not
	// known. effective_cpus counts them.
	Cpuset      string `json:"cpuset"`
	AllowedCPUs string `json:"allowed_cpus,omitempty"`
}

// Level is a limit found on an ancestor, for effective_cpus to explain itself.
type Level struct {
	Dir      string `json:"dir"`
	PeriodUs int64  `json:"period_us"`
	QuotaUs  int64  `json:"quota_us"`
}

type Host struct {
	Kernel    string `json:"kernel"`
	CPUModel  string `json:"cpu_model"`
	NumCPU    int    `json:"num_cpu"`
	GoVersion string `json:"go_version"`
	Hostname  string `json:"hostname"`
	StartedAt string `json:"started_at"`
	// Node is the Kubernetes node the run's pod ran on, passed in through
	// the downward API as NodeEnv; absent outside a cluster.
	Node string `json:"node,omitempty"`
}

type Stats struct {
	N          int     `json:"n"`
	MeanMs     float64 `json:"mean_ms"`
	VarianceMs float64 `json:"variance_ms2"`
	StddevMs   float64 `json:"stddev_ms"`
	CoV        float64 `json:"cov"`
	MinMs      float64 `json:"min_ms"`
	MaxMs      float64 `json:"max_ms"`
	P50Ms      float64 `json:"p50_ms"`
	P90Ms      float64 `json:"p90_ms"`
	P99Ms      float64 `json:"p99_ms"`
}

type Worker struct {
	ID     int     `json:"id"`
	MeanMs float64 `json:"mean_ms"`
	MinMs  float64 `json:"min_ms"`
	MaxMs  float64 `json:"max_ms"`
	CPUMs  float64 `json:"cpu_ms"` // thread CPU time over all measured iterations
	// Profile is "slow" for a worker that sleeps (--slow-workers), "fast"
	// otherwise.
	Profile string `json:"profile"`
	// Ops are the operations it completed over all measured iterations.
	Ops int `json:"ops"`
	// Page faults of the worker's thread over all measured iterations.
	FaultsMinor uint64 `json:"faults_minor"`
	FaultsMajor uint64 `json:"faults_major"`
	// Where it ran over all measured iterations: the CPUs sampled at its
	// operation boundaries (ascending; null where the OS could not say),
	// its migrations (counted as Report.MigrationsSource says) and its
	// thread's context switches, voluntary (it blocked: a sleep) and
	// involuntary (preempted, or throttled).
	CPUs                   []int  `json:"cpus"`
	Migrations             uint64 `json:"migrations"`
	CtxSwitchesVoluntary   uint64 `json:"ctx_switches_voluntary"`
	CtxSwitchesInvoluntary uint64 `json:"ctx_switches_involuntary"`
	// PinnedCPU is the CPU the worker was pinned to (--pin); null when not.
	PinnedCPU *int `json:"pinned_cpu"`
}

// Spread compares the workers' throughputs, each its operations per
// second of its own wall time over the measured iterations (its
// operations over the sum of the times from each iteration's start until
// it finished).
type Spread struct {
	// SlowestToFastest is the slowest worker's throughput over the
	// fastest's: 1 when all kept pace, 0.5 when one ran two times slower
	// than another.
	SlowestToFastest float64 `json:"slowest_to_fastest"`
	// CoV is the throughputs' sample standard deviation (n−1) over their
	// mean, as stats.cov is for the iterations; 0 with one worker.
	CoV float64 `json:"cov"`
}

// Faults are the workers' page faults, all of them together, per measured
// iteration (mean) and per operation.
type Faults struct {
	Minor      float64 `json:"minor"`
	Major      float64 `json:"major"`
	MinorPerOp float64 `json:"minor_per_op"`
	MajorPerOp float64 `json:"major_per_op"`
}

// Throttling holds the change of the kernel's counters over the run; null
// where the kernel does not report a counter.
type Throttling struct {
	NrPeriods         *uint64  `json:"nr_periods"`
	NrThrottled       *uint64  `json:"nr_throttled"`
	ThrottledMs       *float64 `json:"throttled_ms"`
	NrBursts          *uint64  `json:"nr_bursts"`
	BurstMs           *float64 `json:"burst_ms"`
	ThrottledFraction *float64 `json:"throttled_fraction"`
}

// Usage is the CPU time the measured cgroup used over the measured window
// and what share of its quota that is. Null where it is not known: the CPU
// time when no counter could be read, the utilisation too when the cgroup
// has no quota of its own or no period was counted.
type Usage struct {
	CPUMs *float64 `json:"cpu_ms"`
	// QuotaUtilisation is cpu_ms / (quota × nr_periods), the cgroup's own
	// quota and the change of its nr_periods over the same window: 1 when
	// every period used its whole quota; above 1 with burst.
	QuotaUtilisation *float64 `json:"quota_utilisation"`
	// Source says where cpu_ms comes from: SourceCgroup or SourceProcess;
	// null with cpu_ms.
	Source *string `json:"source"`
}

// Where a cgroup's usage comes from.
const (
	// SourceCgroup: the cgroup's own counter (v2 cpu.stat usage_usec, v1
	// cpuacct.usage).
	SourceCgroup = "cgroup"
	// SourceProcess: the workload process's CPU clock, where the cgroup
	// has no counter (a v1 slice, cpuacct mounted apart): the workload is
	// alone in its slice, so that is the slice's usage. In current mode
	// without a counter it is this process's alone.
	SourceProcess = "process"
)

// usage is the Usage of cpu (nil: not known), read from source, against
// the cgroup's own quota over periods (the change of its nr_periods). Run
// and latency share it, so that the key means the same in both.
func usage(cpu *time.Duration, source string, quota time.Duration, periods *uint64) Usage {
	if cpu == nil {
		return Usage{}
	}
	u := Usage{CPUMs: msPtr(cpu), Source: &source}
	if quota > 0 && periods != nil && *periods > 0 {
		q := float64(*cpu) / (float64(quota) * float64(*periods))
		u.QuotaUtilisation = &q
	}
	return u
}

// Model compares the measured mean with the CFS bandwidth model.
type Model struct {
	CPUMsPerIteration float64 `json:"cpu_ms_per_iteration"`
	Parallelism       float64 `json:"parallelism"`
	ExpectedMs        float64 `json:"expected_ms"`
	Ratio             float64 `json:"ratio"`
}

// Input is everything a report is built from.
type Input struct {
	Config driver.Config
	Policy string
	Mode   string
	Cgroup cgroup.Cgroup
	Limits cgroup.Limits
	Chain  []cgroup.Level
	NumCPU int
	Result driver.Result
	Stat   cgroup.CPUStat // the change over the run
	// Usage is the measured cgroup's CPU time over the same window (nil:
	// not known), UsageSource where it was read (SourceCgroup,
	// SourceProcess).
	Usage       *time.Duration
	UsageSource string
	Host        Host
	Warnings    []string // found by the caller; Build adds those of Check
	// Background is what else was read around the measured iterations.
	Background Background
	// Cpuset is what --cpuset asked (nil: nothing); CgroupCpuset the
	// slice's CPUs read back. NumCPU counts the CPUs only where the result
	// does not say which the workers could use (Result.AllowedCPUs).
	Cpuset       []int
	CgroupCpuset string
}

// Build computes the statistics and the model from the raw samples.
func Build(in Input) *Report {
	r := &Report{
		SchemaVersion: SchemaVersion,
		Config: Config{
			Workload: in.Config.Workload, Batch: in.Config.Batch,
			Iterations: in.Config.Iterations, MinTimeMs: ms(in.Config.MinTime), Warmup: in.Config.Warmup, Workers: in.Config.Workers,
			GOMAXPROCS: in.Result.GOMAXPROCS, GOMAXPROCSPolicy: in.Policy,
			Cpuset: topology.FormatList(in.Cpuset), Pin: in.Config.Pin, OnePerCore: in.Config.OnePerCore,
		},
		Host:     in.Host,
		Warnings: append([]string{}, in.Warnings...),
	}
	workloadConfig(&r.Config, in.Config)

	// The CPUs the workers could use, as the workload process saw them
	// after its placement; the machine's where it did not say.
	allowed := in.NumCPU
	if n := len(in.Result.AllowedCPUs); n > 0 {
		allowed = n
	}
	eff := cgroup.EffectiveCPUs(in.Chain, allowed)
	r.Cgroup = cgroupBlock(in.Mode, in.Cgroup, in.Limits, in.Chain, eff)
	r.Cgroup.Cpuset, r.Cgroup.AllowedCPUs = in.CgroupCpuset, topology.FormatList(in.Result.AllowedCPUs)

	n := in.Config.Workers
	perWorker := make([][]float64, n)
	cpuMs := make([]float64, n)
	minor, major := make([]uint64, n), make([]uint64, n)
	where := make([]placement, n)
	var cpuPerIter []float64
	for _, it := range in.Result.Iterations {
		r.DurationsMs = append(r.DurationsMs, ms(it.Wall))
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
	r.Stats = Stats{N: s.N, MeanMs: s.Mean, VarianceMs: s.Variance, StddevMs: s.Stddev, CoV: s.CoV,
		MinMs: s.Min, MaxMs: s.Max, P50Ms: s.P50, P90Ms: s.P90, P99Ms: s.P99}
	for w := range perWorker {
		ws := stats.Summarize(perWorker[w])
		profile := "fast"
		if in.Config.Slow(w) {
			profile = "slow"
		}
		p := where[w]
		r.Workers = append(r.Workers, Worker{ID: w, MeanMs: ws.Mean, MinMs: ws.Min, MaxMs: ws.Max, CPUMs: cpuMs[w],
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
	if in.Config.Workload == "memtouch" && s.Mean > 0 {
		bytes := float64(cmp.Or(in.Config.Buffer, workload.DefaultBuffer)) * float64(in.Config.Batch*n)
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
	r.Model = Model{CPUMsPerIteration: cpu, Parallelism: round(par, 6), ExpectedMs: model.ExpectedDuration(cpu, par)}
	if r.Model.ExpectedMs > 0 {
		r.Model.Ratio = s.Mean / r.Model.ExpectedMs
	}

	r.Throttling = throttling(in.Stat)
	r.Usage = usage(in.Usage, in.UsageSource, in.Limits.Quota, in.Stat.NrPeriods)
	r.Warnings = append(r.Warnings, Check(r, in.Background, DefaultThresholds)...)
	return r
}

// workloadConfig fills the chosen workload's own parameters, and the
// waits where there are any.
func workloadConfig(c *Config, d driver.Config) {
	switch d.Workload {
	case "bcrypt":
		c.Cost = d.Cost
	case "spin":
		c.Units = d.Units
	case "memtouch":
		c.BufferBytes, c.Memory = cmp.Or(d.Buffer, workload.DefaultBuffer), cmp.Or(d.Memory, workload.MemoryFresh)
	}
	if d.Sleep > 0 {
		c.SleepMs, c.SleepEvery, c.SlowWorkers = ms(d.Sleep), max(d.SleepEvery, 1), d.SlowWorkers
	}
}

// faults are the workers' page faults per iteration and per operation.
func faults(minor, major []uint64, iterations, opsPerIteration int) Faults {
	var f Faults
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
func cgroupBlock(mode string, cg cgroup.Cgroup, limits cgroup.Limits, chain []cgroup.Level, eff float64) Cgroup {
	c := Cgroup{
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
	for _, l := range chain[min(1, len(chain)):] {
		if l.Limits.Quota > 0 {
			c.Levels = append(c.Levels, Level{Dir: l.Dir, PeriodUs: micros(l.Limits.Period), QuotaUs: micros(l.Limits.Quota)})
		}
	}
	return c
}

// throttling is the change of cpu.stat over the measured window.
func throttling(st cgroup.CPUStat) Throttling {
	t := Throttling{NrPeriods: st.NrPeriods, NrThrottled: st.NrThrottled, NrBursts: st.NrBursts,
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
