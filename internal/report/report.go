package report

// SchemaVersion changes whenever a key changes meaning or goes away.
const SchemaVersion = 1

// IterationCounters are one run's: its CPU time (wait4's: the command and
// the children it waited for) and the cgroup's throttling counters read
// just before and just after it (null where the kernel has none).
type IterationCounters struct {
	CPUMs       float64  `json:"cpu_ms"`
	NrPeriods   *uint64  `json:"nr_periods"`
	NrThrottled *uint64  `json:"nr_throttled"`
	ThrottledMs *float64 `json:"throttled_ms"`
}

// Report is the result of one run. Keys say their unit.
type Report struct {
	SchemaVersion int       `json:"schema_version"`
	Config        Config    `json:"config"`
	Cgroup        Cgroup    `json:"cgroup"`
	Host          Host      `json:"host"`
	DurationsMs   []float64 `json:"durations_ms"`
	// ThrottledMsPerIteration (--trace) is each measured iteration's
	// throttled time, durations_ms's twin: the union over CPUs of the
	// traced throttles that overlapped it.
	ThrottledMsPerIteration []float64 `json:"throttled_ms_per_iteration,omitempty"`
	// Breakdown (--trace) is each iteration's time split by cause, the
	// mean over its workers' threads; nil where none was split (a
	// command's run, whose threads are not the harness's).
	Breakdown *Breakdown `json:"breakdown,omitempty"`
	// CountersPerIteration is durations_ms's other twin: each measured
	// iteration's CPU time (the workers' threads, or a command's process
	// tree) and, for a command, what the cgroup's cpu.stat moved over it.
	// compare judges the CPU time beside the wall time: it moves with the
	// code, hardly with the machine's other load.
	CountersPerIteration []IterationCounters `json:"counters_per_iteration,omitempty"`
	Stats                Stats               `json:"stats"`
	Workers              []Worker            `json:"workers"`
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
	// Contention is how much the work waited for CPUs others held.
	Contention *Contention `json:"contention"`
	// CPUs100ms is the slice's use in each whole 100 ms of the measured
	// window, in CPUs, from a sampler outside it (created mode); not
	// written (size computes the usage-based rules from it).
	CPUs100ms []float64 `json:"-"`
	Model     Model     `json:"model"`
	// ThrottleEvents (--trace) is what the kernel's throttle events said of
	// the measured window; absent without --trace or where tracing failed
	// (the warnings say why).
	ThrottleEvents *ThrottleEvents `json:"throttle_events,omitempty"`
	Warnings       []Warning       `json:"warnings"`
}

type Config struct {
	// Workload and its own values (bcrypt's cost, spin's units, memtouch's
	// buffer_bytes, memory and touch: what its Spec declares), written
	// first and inline by MarshalJSON (params.go), present with it only.
	Workload string `json:"-"`
	Params   Params `json:"-"`
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
	// ParentWeight is the CPU weight of a created slice's parent as the
	// run read it, on v2's scale (100 the kernel's default; v1's
	// cpu.shares × 100 / 1024): what the slice's work gets beside other
	// work when the CPUs are busy. throttlebench's default parent has
	// 10000 (docs/run.md, "Weight"). Absent in current mode.
	ParentWeight int `json:"parent_weight,omitempty"`
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

// Model compares the measured mean with the CFS bandwidth model.
type Model struct {
	CPUMsPerIteration float64 `json:"cpu_ms_per_iteration"`
	Parallelism       float64 `json:"parallelism"`
	ExpectedMs        float64 `json:"expected_ms"`
	Ratio             float64 `json:"ratio"`
}
