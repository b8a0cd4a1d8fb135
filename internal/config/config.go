package config

import (
	"strconv"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Kernel limits on CFS bandwidth settings (Documentation/scheduler/sched-bwc.rst).
const (
	MinPeriod = time.Millisecond
	MaxPeriod = time.Second
	MinQuota  = time.Millisecond
)

// Our own bounds: far beyond any machine we run on, small enough that no
// product or conversion overflows (a quota of 1e308 CPUs once came out as 0s).
const (
	MaxCPUs    = 1024 // --cpus, --workers, --gomaxprocs; the quota at most MaxCPUs × period
	MaxMinTime = time.Hour
)

// MaxValues bounds a list of values, a sweep's axis and size's grid of
// quotas alike: a typo in a step cannot start a million runs.
const MaxValues = 1000

// DefaultPeriod is the kernel's and Docker's default CFS period.
const DefaultPeriod = 100 * time.Millisecond

// Config is one configuration of a run.
type Config struct {
	Workload string
	// Params are the chosen workload's own values (decl.Spec: bcrypt's
	// cost, memtouch's buffer_bytes, memory and touch), as its results
	// hold them; args are every workload's flags as given, until Resolve
	// turns the chosen one's into Params.
	Params report.Params
	args   map[string]string
	// CPU with waits: the first SlowWorkers workers sleep Sleep after
	// every SleepEvery operations; Sleep 0 = none.
	Sleep       time.Duration
	SleepEvery  int
	SlowWorkers int
	Batch       int // operations per worker per iteration
	Iterations  int // measured iterations (the least, with MinTime)
	Warmup      int
	MinTime     time.Duration
	Workers     int
	// GOMAXPROCS is the policy as given: a number, "workers" or "runtime".
	GOMAXPROCS string
	// Limits are the CFS limits to create a slice with; LimitsSet says the
	// user gave any of them (or a cpuset).
	Limits    bandwidth.Limits
	LimitsSet bool
	// Placement: Cpuset the CPUs of a created slice (nil: none asked);
	// Pin and OnePerCore the workers' (see runspec.ClosedLoop).
	Cpuset     []int
	Pin        bool
	OnePerCore bool
	// The open loop's (latency): see runspec.OpenLoop.
	Rate     float64
	Arrivals string
	On, Off  time.Duration
	Work     time.Duration
	Wait     time.Duration
	Queue    int
	Duration time.Duration
	Seed     uint64
	// Count is --arrivals once's number of requests.
	Count int
	// The instances' (latency --instances), as given: InstancesPolicy ""
	// means none. Instances is what they resolve to (resolveInstances).
	InstancesPolicy string
	Concurrency     int
	Init            time.Duration
	InitMemory      int64
	KeepAlive       time.Duration
	BillGranularity time.Duration
	Instances       *runspec.Instances
}

// GOMAXPROCSValue is the GOMAXPROCS to set: a number, the workers, or 0 for
// the runtime's own cgroup-aware default.
func (c Config) GOMAXPROCSValue() int {
	switch c.GOMAXPROCS {
	case "workers":
		return c.Workers
	case "runtime", runspec.RuleFloor, runspec.RuleCeil:
		return 0 // floor and ceil: computed once the cgroup's quota is known
	}
	n, _ := strconv.Atoi(c.GOMAXPROCS)
	return n
}

// gomaxprocsRule is the rule bench computes from the quota, or "".
func (c Config) gomaxprocsRule() string {
	if c.GOMAXPROCS == runspec.RuleFloor || c.GOMAXPROCS == runspec.RuleCeil {
		return c.GOMAXPROCS
	}
	return ""
}

// ClosedLoop is the closed-loop driver's configuration (run, sweep), as
// OpenLoop is latency's.
func (c Config) ClosedLoop() runspec.ClosedLoop {
	return runspec.ClosedLoop{Workload: c.Workload, Params: c.Params,
		Sleep: c.Sleep, SleepEvery: c.SleepEvery, SlowWorkers: c.SlowWorkers, Batch: c.Batch, Iterations: c.Iterations,
		Warmup: c.Warmup, Workers: c.Workers, GOMAXPROCS: c.GOMAXPROCSValue(), MinTime: c.MinTime,
		Pin: c.Pin, OnePerCore: c.OnePerCore, GOMAXPROCSRule: c.gomaxprocsRule()}
}
