package runspec

import (
	"time"

	"github.com/throttlebench/throttlebench/internal/report"
)

// ClosedLoop is what one closed-loop run executes (bench.Run). All counts
// are validated by the caller. It is not called Config, beside the
// configuration it is made from (config.Config.ClosedLoop).
type ClosedLoop struct {
	Workload string `json:"workload"`
	// Params are the workload's own values as its result's config holds
	// them (decl.Spec: bcrypt's cost, memtouch's buffer_bytes…); one
	// left out takes its default.
	Params report.Params `json:"params,omitempty"`
	// CPU with waits: the first SlowWorkers workers sleep Sleep after every
	// SleepEvery operations (workload.WithWaits); Sleep 0 = none.
	Sleep       time.Duration `json:"sleep_ns,omitempty"`
	SleepEvery  int           `json:"sleep_every,omitempty"`
	SlowWorkers int           `json:"slow_workers,omitempty"`
	Batch       int           `json:"batch"`      // operations per worker per iteration
	Iterations  int           `json:"iterations"` // measured iterations, at least
	Warmup      int           `json:"warmup"`     // iterations run first and discarded
	Workers     int           `json:"workers"`
	// MinTime: after Iterations, keep measuring until the measured
	// iterations span at least this long (0 = off), at most MaxIterations.
	MinTime time.Duration `json:"min_time_ns"`
	// GOMAXPROCS: > 0 sets it; 0 keeps the Go runtime's own cgroup-aware default.
	GOMAXPROCS int `json:"gomaxprocs"`
	// StatDir is the cgroup directory whose cpu.stat a command's loop
	// reads around each run (the workload child's slice); Stat, when set,
	// is that reader (the caller opens it: bench knows no cgroup). Stat is
	// the one field that is not data: it never crosses the pipe (json:"-"),
	// and moving it out would change bench.Run's signature and every caller.
	StatDir string                   `json:"stat_dir,omitempty"`
	Stat    func() (IterStat, error) `json:"-"`
	// GOMAXPROCSRule, when set (RuleFloor, RuleCeil), is computed into
	// GOMAXPROCS from the cgroup's quota once it is known (WithQuota).
	GOMAXPROCSRule string `json:"gomaxprocs_rule,omitempty"`
	// Placement (bench's placement.go): OnePerCore keeps the workers on one SMT
	// sibling of each core the process may use; Pin puts worker i on the
	// i-th of those CPUs.
	Pin        bool `json:"pin,omitempty"`
	OnePerCore bool `json:"one_per_core,omitempty"`
}

// MaxIterations bounds the measured iterations of a run, --min-time's too:
// however short an iteration, a run ends.
const MaxIterations = 1_000_000

// IterStat is the kernel's throttling counters of the cgroup at one
// moment (cpu.stat), nil where the kernel has none.
type IterStat struct {
	NrPeriods     *uint64        `json:"nr_periods,omitempty"`
	NrThrottled   *uint64        `json:"nr_throttled,omitempty"`
	ThrottledTime *time.Duration `json:"throttled_ns,omitempty"`
}

// WithQuota is cfg with its GOMAXPROCSRule computed from the quota of the
// cgroup it runs in (cpus, +Inf for none) and the CPUs it may use.
func (cfg ClosedLoop) WithQuota(cpus float64, ncpu int) ClosedLoop {
	if cfg.GOMAXPROCSRule != "" {
		cfg.GOMAXPROCS = RuleGOMAXPROCS(cfg.GOMAXPROCSRule, cpus, ncpu)
	}
	return cfg
}

// Slow says whether worker id runs with the waits.
func (cfg ClosedLoop) Slow(id int) bool { return cfg.Sleep > 0 && id < cfg.SlowWorkers }
