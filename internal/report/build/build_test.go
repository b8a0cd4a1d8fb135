package build

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

func u64(v uint64) *uint64               { return &v }
func dur(v time.Duration) *time.Duration { return &v }
func iter(ws ...bench.WorkerSample) bench.Iteration {
	it := bench.Iteration{Workers: ws}
	for _, w := range ws {
		it.Wall = max(it.Wall, w.Wall)
	}
	return it
}

func sample() Input {
	ms := time.Millisecond
	return Input{
		Config: runspec.ClosedLoop{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 10, Iterations: 3, Warmup: 1, Workers: 2, GOMAXPROCS: 2},
		Policy: "workers", Mode: "created",
		Cgroup: bandwidth.Group{Version: 1, Path: "/throttlebench/tb-1", Dir: "/sys/fs/cgroup/cpu/throttlebench/tb-1"},
		Limits: bandwidth.Limits{Period: 100 * ms, Quota: 50 * ms},
		Chain:  []bandwidth.Level{{Dir: "/x", Limits: bandwidth.Limits{Period: 100 * ms, Quota: 50 * ms}}},
		NumCPU: 2,
		Result: bench.Result{GOMAXPROCS: 2, Iterations: []bench.Iteration{
			iter(bench.WorkerSample{Wall: 100 * ms, CPU: 20 * ms}, bench.WorkerSample{Wall: 80 * ms, CPU: 20 * ms}),
			iter(bench.WorkerSample{Wall: 90 * ms, CPU: 20 * ms}, bench.WorkerSample{Wall: 60 * ms, CPU: 20 * ms}),
			iter(bench.WorkerSample{Wall: 50 * ms, CPU: 20 * ms}, bench.WorkerSample{Wall: 110 * ms, CPU: 20 * ms}),
		}},
		Stat: bandwidth.CPUStat{NrPeriods: u64(4), NrThrottled: u64(3), ThrottledTime: dur(150 * ms)},
	}
}

func TestBuild(t *testing.T) {
	r := Build(sample())
	assert.Equal(t, []float64{100, 90, 110}, r.DurationsMs)
	assert.Equal(t, 3, r.Stats.N)
	assert.InDelta(t, 100, r.Stats.MeanMs, 1e-9)
	assert.InDelta(t, 100, r.Stats.VarianceMs, 1e-9) // ((0)²+(-10)²+(10)²)/2
	assert.InDelta(t, 0.1, r.Stats.CoV, 1e-9)
	assert.Equal(t, 90.0, r.Stats.MinMs)
	assert.Equal(t, 110.0, r.Stats.MaxMs)

	require.Len(t, r.Workers, 2)
	assert.InDelta(t, 80, r.Workers[0].MeanMs, 1e-9)
	assert.InDelta(t, 60, r.Workers[1].CPUMs, 1e-9)

	// 40 ms of CPU per iteration on min(2 workers, 2 CPUs, 0.5 quota) = 0.5 CPUs.
	assert.InDelta(t, 40, r.Model.CPUMsPerIteration, 1e-9)
	assert.InDelta(t, 0.5, r.Model.Parallelism, 1e-9)
	assert.InDelta(t, 80, r.Model.ExpectedMs, 1e-9)
	assert.InDelta(t, 1.25, r.Model.Ratio, 1e-9)

	assert.Equal(t, int64(50000), r.Cgroup.QuotaUs)
	assert.Equal(t, int64(100000), *r.Cgroup.PeriodUs)
	assert.InDelta(t, 0.5, r.Cgroup.EffectiveCPUs, 1e-9)
	require.NotNil(t, r.Throttling.ThrottledFraction)
	assert.InDelta(t, 0.75, *r.Throttling.ThrottledFraction, 1e-9)
	assert.InDelta(t, 150, *r.Throttling.ThrottledMs, 1e-9)
}

// Counters the kernel does not report are null in the JSON, never 0.
func TestMissingCountersAreNull(t *testing.T) {
	in := sample()
	in.Stat = bandwidth.CPUStat{NrPeriods: u64(0), NrThrottled: u64(0)}
	in.Limits = bandwidth.Limits{Period: 100 * time.Millisecond, Quota: bandwidth.Unlimited}
	var buf bytes.Buffer
	require.NoError(t, report.WriteJSON(&buf, Build(in)))
	var m struct {
		Throttling map[string]any `json:"throttling"`
		Cgroup     map[string]any `json:"cgroup"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &m))
	th := m.Throttling
	assert.Equal(t, 0.0, th["nr_periods"])
	for _, k := range []string{"throttled_ms", "nr_bursts", "burst_ms", "throttled_fraction"} {
		v, present := th[k]
		assert.True(t, present, k)
		assert.Nil(t, v, k)
	}
	assert.Equal(t, -1.0, m.Cgroup["quota_us"])
	assert.Equal(t, 100000.0, m.Cgroup["period_us"])
}

func TestMinTimeInJSON(t *testing.T) {
	in := sample()
	in.Config.Iterations, in.Config.MinTime = 2, 1500*time.Millisecond
	r := Build(in)
	assert.Equal(t, 2, r.Config.Iterations, "what was asked")
	assert.Equal(t, 3, r.Stats.N, "what ran")
	assert.Equal(t, 1500.0, r.Config.MinTimeMs)
}

// The workload's own parameters and the waits are in config; each worker
// says whether it slept; faults add up per iteration and per operation;
// memtouch has its MB/s, and no cost (bcrypt's).
func TestWorkloadParamsProfilesAndFaults(t *testing.T) {
	in := sample()
	in.Config = runspec.ClosedLoop{Workload: "memtouch", Params: report.Params{}.With("cost", 12).With("buffer_bytes", 1<<20).With("memory", "reuse"), Batch: 10, Iterations: 3, Workers: 2, GOMAXPROCS: 2,
		Sleep: 10 * time.Millisecond, SleepEvery: 100, SlowWorkers: 1}
	for i := range in.Result.Iterations {
		in.Result.Iterations[i].Workers[0].FaultsMinor = 30
		in.Result.Iterations[i].Workers[1].FaultsMinor = 10
		in.Result.Iterations[i].Workers[1].FaultsMajor = 2
	}
	r := Build(in)
	assert.Equal(t, report.Config{Workload: "memtouch", Params: report.Params{}.With("buffer_bytes", 1<<20).With("memory", "reuse").With("touch", "all"), SleepMs: 10, SleepEvery: 100, SlowWorkers: 1,
		Batch: 10, Iterations: 3, Warmup: 0, Workers: 2, GOMAXPROCS: 2, GOMAXPROCSPolicy: "workers"}, r.Config)
	assert.Equal(t, "slow", r.Workers[0].Profile)
	assert.Equal(t, "fast", r.Workers[1].Profile)
	assert.Equal(t, uint64(90), r.Workers[0].FaultsMinor)
	assert.Equal(t, uint64(6), r.Workers[1].FaultsMajor)
	assert.Equal(t, report.Faults{Minor: 40, Major: 2, MinorPerOp: 2, MajorPerOp: 0.1}, r.Faults)
	// 20 operations of 1 MiB in a mean iteration of 100 ms.
	require.NotNil(t, r.MBPerS)
	assert.InDelta(t, 20*1.048576/0.1, *r.MBPerS, 1e-6)

	in.Config.Params = in.Config.Params.With("touch", "page")
	assert.Equal(t, "page", Build(in).Config.Params.String("touch"))

	b := Build(sample())
	assert.Nil(t, b.MBPerS, "mb_per_s is memtouch's")
	assert.Equal(t, report.Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 10, Iterations: 3, Warmup: 1, Workers: 2, GOMAXPROCS: 2, GOMAXPROCSPolicy: "workers"}, b.Config,
		"no other workload's parameters, no waits")
	assert.Equal(t, "fast", b.Workers[0].Profile)
}

// usage is the cgroup's CPU time against its own quota over the periods
// the kernel counted in the same window, by hand: 150 ms of CPU against
// 50 ms × 4 periods is 0.75.
func TestBuildUsage(t *testing.T) {
	in := sample()
	in.Usage, in.UsageSource = dur(150*time.Millisecond), report.SourceProcess
	u := Build(in).Usage
	require.NotNil(t, u.CPUMs)
	assert.InDelta(t, 150, *u.CPUMs, 1e-9)
	require.NotNil(t, u.QuotaUtilisation)
	assert.InDelta(t, 0.75, *u.QuotaUtilisation, 1e-12, "150 ms / (50 ms × 4 periods)")
	require.NotNil(t, u.Source)
	assert.Equal(t, "process", *u.Source)

	// With burst a period may use more than its quota: above 1, as it is.
	in.Usage, in.UsageSource = dur(260*time.Millisecond), report.SourceCgroup
	u = Build(in).Usage
	require.NotNil(t, u.QuotaUtilisation)
	assert.InDelta(t, 1.3, *u.QuotaUtilisation, 1e-12)
	assert.Equal(t, "cgroup", *u.Source)
}

// The utilisation is null where it has no meaning: no quota of the
// cgroup's own, no period counted, a counter the kernel does not report;
// everything is null when the CPU time is not known.
func TestBuildUsageNull(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Input)
	}{
		{"no quota", func(in *Input) { in.Limits.Quota = bandwidth.Unlimited }},
		{"zero periods", func(in *Input) { in.Stat.NrPeriods = u64(0) }},
		{"periods not reported", func(in *Input) { in.Stat.NrPeriods = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := sample()
			in.Usage, in.UsageSource = dur(150*time.Millisecond), report.SourceCgroup
			tc.edit(&in)
			u := Build(in).Usage
			require.NotNil(t, u.CPUMs)
			assert.InDelta(t, 150, *u.CPUMs, 1e-9)
			assert.Nil(t, u.QuotaUtilisation)
		})
	}

	r := Build(sample())
	assert.Equal(t, report.Usage{}, r.Usage)
	var b bytes.Buffer
	require.NoError(t, report.WriteJSON(&b, r))
	assert.Contains(t, b.String(), `"usage": {
    "cpu_ms": null,
    "quota_utilisation": null,
    "source": null
  }`)
}

// Build judges the usage it computed: fibtest's numbers (throttled in 90
// of 100 periods of a 50 ms quota, 600 ms of CPU: 12% of it) warn.
func TestBuildWarnsOfUnusedQuota(t *testing.T) {
	in := sample()
	in.Stat = bandwidth.CPUStat{NrPeriods: u64(100), NrThrottled: u64(90)}
	in.Usage, in.UsageSource = dur(600*time.Millisecond), report.SourceCgroup
	r := Build(in)
	require.NotNil(t, r.Usage.QuotaUtilisation)
	assert.InDelta(t, 0.12, *r.Usage.QuotaUtilisation, 1e-12)
	assert.Contains(t, headlines(r.Warnings), "throttled below quota")
}

// A lone worker that changed threads says so, with how often; one that
// kept its thread says nothing.
func TestBuildWarnsOfThreadMoves(t *testing.T) {
	in := sample()
	assert.NotContains(t, headlines(Build(in).Warnings), "worker changed threads")
	in.Result.ThreadMoves = 1
	ws := Build(in).Warnings
	require.Contains(t, headlines(ws), "worker changed threads")
	assert.Contains(t, ws[len(ws)-1].Text, fmt.Sprintf("in 1 of %d iterations", len(in.Result.Iterations)))
}

// The placement: what was asked, the CPUs read back, each worker's pinned
// CPU; effective_cpus and the model count the CPUs the workers could use
// (the child's allowed set), not the machine's.
func TestPlacement(t *testing.T) {
	in := sample()
	in.Limits.Quota, in.Chain = bandwidth.Unlimited, nil
	in.NumCPU = 16
	in.Cpuset, in.CgroupCpuset = []int{1}, "1"
	in.Result.AllowedCPUs = []int{1}
	r := Build(in)
	assert.Equal(t, "1", r.Config.Cpuset)
	assert.Equal(t, "1", r.Cgroup.Cpuset)
	assert.Equal(t, "1", r.Cgroup.AllowedCPUs)
	assert.Equal(t, 1.0, r.Cgroup.EffectiveCPUs, "an unlimited quota on a cpuset of one CPU")
	assert.Equal(t, 1.0, r.Model.Parallelism)
	assert.Nil(t, r.Workers[0].PinnedCPU)

	// Pinned: 2 workers on CPUs 0 and 1 of 0-1, under a quota of 0.5.
	in = sample()
	in.Config.Pin = true
	in.Result.AllowedCPUs, in.Result.PinnedCPUs = []int{0, 1}, []int{0, 1}
	r = Build(in)
	assert.Equal(t, "", r.Config.Cpuset)
	assert.True(t, r.Config.Pin)
	assert.False(t, r.Config.OnePerCore)
	require.NotNil(t, r.Workers[0].PinnedCPU)
	require.NotNil(t, r.Workers[1].PinnedCPU)
	assert.Equal(t, [2]int{0, 1}, [2]int{*r.Workers[0].PinnedCPU, *r.Workers[1].PinnedCPU})
	assert.Equal(t, 0.5, r.Cgroup.EffectiveCPUs)
	assert.Equal(t, 0.5, r.Model.Parallelism)

	// 3 workers pinned round robin on 2 CPUs: the busiest runs two.
	in = sample()
	in.Limits.Quota, in.Chain = bandwidth.Unlimited, nil
	in.Config.Workers, in.Config.GOMAXPROCS, in.Result.GOMAXPROCS = 3, 3, 3
	in.Result.AllowedCPUs, in.Result.PinnedCPUs = []int{0, 1}, []int{0, 1, 0}
	for i := range in.Result.Iterations {
		in.Result.Iterations[i].Workers = append(in.Result.Iterations[i].Workers, bench.WorkerSample{Wall: 100 * time.Millisecond, CPU: 20 * time.Millisecond})
	}
	r = Build(in)
	assert.Equal(t, 2.0, r.Cgroup.EffectiveCPUs)
	assert.Equal(t, 1.5, r.Model.Parallelism)

	var b bytes.Buffer
	require.NoError(t, report.WriteJSON(&b, r))
	var m struct{ Config, Cgroup map[string]any }
	require.NoError(t, json.Unmarshal(b.Bytes(), &m))
	for _, k := range []string{"cpuset", "pin", "one_per_core"} {
		assert.Contains(t, m.Config, k)
	}
	assert.Equal(t, "", m.Cgroup["cpuset"])
	assert.Equal(t, "0-1", m.Cgroup["allowed_cpus"])

	// Without the child's word, the machine's CPUs count, as before.
	in = sample()
	in.Limits.Quota, in.Chain = bandwidth.Unlimited, nil
	r = Build(in)
	assert.Equal(t, 2.0, r.Cgroup.EffectiveCPUs)
	assert.Empty(t, r.Cgroup.AllowedCPUs)
}
