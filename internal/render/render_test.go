package render

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
)

func u64(v uint64) *uint64   { return &v }
func f64(v float64) *float64 { return &v }

// sample is what build.Build makes of three iterations of 100, 90 and
// 110 ms by two workers at 0.5 CPUs (internal/report tests the building).
func sample() *report.Report {
	period := int64(100000)
	return &report.Report{
		SchemaVersion: report.SchemaVersion,
		Config:        report.Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 10, Iterations: 3, Warmup: 1, Workers: 2, GOMAXPROCS: 2, GOMAXPROCSPolicy: "workers"},
		Cgroup:        report.Cgroup{Mode: "created", Version: 1, Path: "/throttlebench/tb-1", PeriodUs: &period, QuotaUs: 50000, EffectiveCPUs: 0.5},
		DurationsMs:   []float64{100, 90, 110},
		Stats:         report.Stats{N: 3, MeanMs: 100, VarianceMs: 100, StddevMs: 10, CoV: 0.1, MinMs: 90, MaxMs: 110, P50Ms: 100, P90Ms: 108, P99Ms: 109.8},
		Throttling:    report.Throttling{NrPeriods: u64(4), NrThrottled: u64(3), ThrottledMs: f64(150), ThrottledFraction: f64(0.75)},
		Model:         report.Model{CPUMsPerIteration: 40, Parallelism: 0.5, ExpectedMs: 80, Ratio: 1.25},
		// Worker 0: 30 ops in 3 × 80 ms = 125/s; worker 1: 30 in 3 × 100 ms = 100/s.
		Workers: []report.Worker{
			{ID: 0, MeanMs: 80, CPUMs: 60, Profile: "fast", Ops: 30, CPUs: []int{0, 1, 2, 3, 8}, Migrations: 4, CtxSwitchesVoluntary: 2, CtxSwitchesInvoluntary: 17},
			{ID: 1, MeanMs: 100, CPUMs: 60, Profile: "fast", Ops: 30, CPUs: []int{1}, Migrations: 0, CtxSwitchesVoluntary: 0, CtxSwitchesInvoluntary: 9},
		},
		Spread:           report.Spread{SlowestToFastest: 0.8, CoV: 0.157},
		MigrationsSource: "kernel",
		Warnings: []report.Warning{{Kind: report.KindFewPeriods, Text: "few periods: the measured iterations span 300 ms, 3 CFS periods of 100ms; raise --iterations or use --min-time 1s"},
			{Kind: report.KindFewIterations, Text: "few iterations: compare can never find a change with 3+3 iterations; raise --iterations to 4 or more"}},
	}
}

func TestTextSummary(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, sample(), "text"))
	out := buf.String()
	assert.Contains(t, out, "Time (mean ± σ):   100.0 ms ± 10.00 ms")
	assert.Contains(t, out, "Range (min … max): 90.00 ms … 110.0 ms")
	assert.Contains(t, out, "Throttled:         3 of 4 periods (75.0%)")
	assert.Contains(t, out, "Usage:             not known (no counter could be read)\n")
	assert.Contains(t, out, "measured/expected 1.25")
	assert.Contains(t, out, "bcrypt cost 4: 2 × 10 ops per iteration, 3 iterations (+1 warm-up)")
	assert.Contains(t, out, "Spread:            slowest worker's ops/s 0.80 × the fastest's, CoV 15.7%")
	assert.Contains(t, out, "Workers:           migrations counted by the kernel")
	assert.Contains(t, out, "\n    worker  ops  ops/s  CPU time   CPUs  migrations  switches vol/invol\n")
	assert.Contains(t, out, "\n         0   30    125  60.00 ms  0-3,8           4                2/17\n")
	assert.Contains(t, out, "\n         1   30    100  60.00 ms      1           0                 0/9\n")
	assert.NotContains(t, out, "profile", "no waits: every worker is fast")
	// The summary shows every warning, in full, but the one about comparing
	// the result later: a person reading it is not comparing (issue 33).
	assert.Contains(t, out, "\n  warning: few periods: the measured iterations span 300 ms")
	assert.NotContains(t, out, "compare can never")

	// A quota whose periods the kernel never counted (a run shorter than
	// one) is no run without a quota (issue 33).
	short := sample()
	short.Throttling = report.Throttling{NrPeriods: u64(0), NrThrottled: u64(0)}
	buf.Reset()
	require.NoError(t, Write(&buf, short, "text"))
	assert.Contains(t, buf.String(), "Throttled:         no bandwidth period counted (the measured iterations ended within one)\n")
	unlimited := sample()
	unlimited.Cgroup.QuotaUs, unlimited.Throttling = -1, report.Throttling{NrPeriods: u64(0), NrThrottled: u64(0)}
	buf.Reset()
	require.NoError(t, Write(&buf, unlimited, "text"))
	assert.Contains(t, buf.String(), "Throttled:         no bandwidth periods ran (no quota)\n")

	one := sample()
	one.Workers, one.Spread = one.Workers[:1], report.Spread{SlowestToFastest: 1}
	buf.Reset()
	require.NoError(t, Write(&buf, one, "text"))
	assert.NotContains(t, buf.String(), "Spread:", "one worker has no spread")
	assert.Contains(t, buf.String(), "Workers:")

	// With --min-time: how many ran, and what was asked.
	r := sample()
	r.Config.Iterations, r.Config.MinTimeMs = 2, 1500
	buf.Reset()
	require.NoError(t, Write(&buf, r, "text"))
	assert.Contains(t, buf.String(), "3 iterations (at least 2, for at least 1.5s) (+1 warm-up)")
	assert.NotContains(t, buf.String(), "placement:", "none asked")

	// A placement: the cpuset as the kernel took it, the workers' CPUs,
	// each one's pin.
	r = sample()
	zero, three := 0, 3
	r.Config.Cpuset, r.Config.Pin, r.Config.OnePerCore = "0-1,3", true, true
	r.Cgroup.Cpuset, r.Cgroup.AllowedCPUs = "0-1,3", "0,3"
	r.Workers = []report.Worker{{PinnedCPU: &zero}, {PinnedCPU: &three}}
	buf.Reset()
	require.NoError(t, Write(&buf, r, "text"))
	assert.Contains(t, buf.String(), "\n  placement:         cpuset 0-1,3; workers on CPUs 0,3 (one per core); pinned to 0, 3\n")
}

// Issue 28: throttled time longer than the periods it fell in is explained
// (two workers over 41 periods showed 7173 ms); counts are words; numbers
// are for people.
func TestTextForPeople(t *testing.T) {
	r := sample()
	r.Throttling = report.Throttling{NrPeriods: u64(41), NrThrottled: u64(41), ThrottledMs: f64(7173), ThrottledFraction: f64(1)}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, r, "text"))
	assert.Contains(t, buf.String(), "Throttled:         41 of 41 periods (100.0%), 7173.0 ms in total\n"+
		"                     (summed over the CPUs: each CPU the group was throttled on counts its own wait, so 7173.0 ms is 1.7× the 4100.0 ms those periods span)\n")

	buf.Reset()
	require.NoError(t, Write(&buf, sample(), "text"))
	assert.NotContains(t, buf.String(), "summed over the CPUs", "150 ms in 4 periods of 100 ms needs no explanation")

	one := sample()
	one.Cgroup.EffectiveCPUs, one.Model.Parallelism = 1, 1
	one.Throttling.NrPeriods = u64(1)
	mb := 35130.2
	one.MBPerS = &mb
	buf.Reset()
	require.NoError(t, Write(&buf, one, "text"))
	assert.Contains(t, buf.String(), "effective 1 CPU\n")
	assert.Contains(t, buf.String(), "on 1 CPU →")
	assert.Contains(t, buf.String(), "3 of 1 period")
	assert.Contains(t, buf.String(), "memory:            35130 MB/s,", "not 3.513e+04")
}

// json is the report's own writer, the schema's; the others are here.
func TestWriteFormats(t *testing.T) {
	for _, format := range Formats {
		var viaRender, direct bytes.Buffer
		require.NoError(t, Write(&viaRender, sample(), format), format)
		switch format {
		case "json":
			require.NoError(t, report.WriteJSON(&direct, sample()))
		case Gobench:
			require.NoError(t, WriteGobench(&direct, []*report.Report{sample()}))
		case GitHubActionBenchmark:
			require.NoError(t, WriteGitHubActionBenchmark(&direct, RunMetrics([]*report.Report{sample()})))
		case BMF:
			require.NoError(t, WriteBMF(&direct, RunMetrics([]*report.Report{sample()})))
		case "text":
			require.NoError(t, writeText(&direct, sample()))
		}
		assert.NotEmpty(t, direct.String(), format)
		assert.Equal(t, direct.String(), viaRender.String(), format)
	}
	assert.ErrorContains(t, Write(&bytes.Buffer{}, sample(), "yaml"), `unknown format "yaml"`)
}

// Each workload is named with its own parameters; bcrypt's gobench name
// stays as it was, the others' add theirs and the waits.
func TestWorkloadNames(t *testing.T) {
	assert.Equal(t, "bcrypt cost 4", workloadText(report.Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4)}))
	assert.Equal(t, "spin 10 units", workloadText(report.Config{Workload: "spin", Params: report.Params{}.With("units", 10)}))
	assert.Equal(t, "memtouch fresh 4096 bytes, touch all", workloadText(report.Config{Workload: "memtouch", Params: report.Params{}.With("buffer_bytes", 4096).With("memory", "fresh").With("touch", "all"), Batch: 100}))
	assert.Equal(t, "memtouch reuse 4096 bytes, touch all, 100 kept", workloadText(report.Config{Workload: "memtouch", Params: report.Params{}.With("buffer_bytes", 4096).With("memory", "reuse").With("touch", "all"), Batch: 100}))
	assert.Equal(t, "memtouch reuse 4096 bytes, touch page, 1 kept", workloadText(report.Config{Workload: "memtouch", Params: report.Params{}.With("buffer_bytes", 4096).With("memory", "reuse"), Batch: 100}),
		"a result from before touch existed stored one byte per page of one buffer")

	r := &report.Report{Config: report.Config{Workload: "spin", Params: report.Params{}.With("cost", 4).With("units", 10), Workers: 2, GOMAXPROCS: 2, Batch: 5,
		SleepMs: 10, SleepEvery: 100, SlowWorkers: 1}}
	assert.Equal(t, "BenchmarkThrottle/cpus=max/period=none/burst=0s/workers=2/gomaxprocs=2/cost=4/batch=5/workload=spin/units=10/sleep=10ms/sleep-every=100/slow-workers=1",
		GobenchName(r))
	r.Config = report.Config{Workload: "memtouch", Workers: 1, GOMAXPROCS: 1, Batch: 100, Params: report.Params{}.With("buffer_bytes", 1<<20).With("memory", "fresh").With("touch", "all")}
	assert.Equal(t, "BenchmarkThrottle/cpus=max/period=none/burst=0s/workers=1/gomaxprocs=1/cost=0/batch=100/workload=memtouch/memory=fresh/buffer=1048576/touch=all",
		GobenchName(r))
	r.Config.Params = report.Params{}.With("buffer_bytes", 1<<20).With("memory", "fresh")
	assert.Contains(t, GobenchName(r), "/buffer=1048576/touch=page", "no touch: one store per page, as memtouch did then")
	r.Config = report.Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Workers: 2, GOMAXPROCS: 2, Batch: 5}
	assert.NotContains(t, GobenchName(r), "workload=")
}

// With waits the table says which workers sleep; sampled migrations say
// they are a lower bound.
func TestWorkersTableWithWaits(t *testing.T) {
	r := sample()
	r.Config.SleepMs, r.Config.SleepEvery, r.Config.SlowWorkers = 10, 5, 1
	r.Workers[0].Profile = "slow"
	r.MigrationsSource = "sampled"
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, r, "text"))
	out := buf.String()
	assert.Contains(t, out, "    worker  profile  ops")
	assert.Contains(t, out, "\n         0     slow   30")
	assert.Contains(t, out, "migrations counted between sampled CPUs (a lower bound)")
}

func TestCPUList(t *testing.T) {
	for want, cpus := range map[string][]int{
		"-":         nil,
		"5":         {5},
		"0-1":       {0, 1},
		"0-3,8":     {0, 1, 2, 3, 8},
		"1,3,5":     {1, 3, 5},
		"0,2-4,6-7": {0, 2, 3, 4, 6, 7},
		"127-129":   {127, 128, 129},
	} {
		assert.Equal(t, want, cpuList(cpus))
	}
}

func TestOpsPerS(t *testing.T) {
	assert.Equal(t, "125", opsPerS(report.Worker{Ops: 30, MeanMs: 80}, 3))
	assert.Equal(t, "12.5", opsPerS(report.Worker{Ops: 3, MeanMs: 80}, 3))
	assert.Equal(t, "0.42", opsPerS(report.Worker{Ops: 1, MeanMs: 800}, 3))
	assert.Equal(t, "-", opsPerS(report.Worker{Ops: 1}, 0), "no time measured")
}

// The usage line: the CPU time, where it was read, and its share of the
// quota over the periods counted when there is one.
func TestTextUsage(t *testing.T) {
	r := sample()
	src := report.SourceCgroup
	r.Usage = report.Usage{CPUMs: f64(150), QuotaUtilisation: f64(0.75), Source: &src}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, r, "text"))
	assert.Contains(t, buf.String(), "Usage:             150.0 ms of CPU (the cgroup's counter), 75.0% of the quota over 4 periods\n")

	src = report.SourceProcess
	r.Usage.QuotaUtilisation = nil
	buf.Reset()
	require.NoError(t, Write(&buf, r, "text"))
	assert.Contains(t, buf.String(), "Usage:             150.0 ms of CPU (the workload process's CPU clock)\n")
}

// --trace's lines: the events against the counter, and the iterations.
func TestEventsText(t *testing.T) {
	assert.Empty(t, eventsText(nil, nil))
	ratio := 0.97
	e := &report.ThrottleEvents{Source: "ebpf", Count: 26, TotalMs: 2790, CPUs: []report.CPUEvents{{CPU: 0}, {CPU: 1}},
		EventsLost: 2, Agreement: &report.ThrottleAgreement{TracedMs: 2790, CounterMs: 2876.5, Ratio: &ratio}}
	got := eventsText(e, []float64{450, 0, 460.5})
	assert.Equal(t, "  Throttle events:   26 on 2 CPUs, 2790.0 ms in total (eBPF); cpu.stat 2876.5 ms, events/counter 0.97; 2 lost\n"+
		"  Per iteration:     2 of 3 iterations throttled, 450.0 ms … 460.5 ms of each\n", got)
}

// ForPeople leaves out the builder's few-iterations warning by its kind,
// whatever its words, and keeps every other.
func TestForPeopleKnowsTheBuildersWarning(t *testing.T) {
	r := sample()
	r.Stats.N = 2
	ws := build.Check(r, build.Background{}, build.DefaultThresholds)
	require.True(t, report.HasKind(ws, report.KindFewIterations), "%q", ws)
	people := ForPeople(ws)
	assert.False(t, report.HasKind(people, report.KindFewIterations))
	assert.Len(t, people, len(ws)-1)
	reworded := []report.Warning{{Kind: report.KindFewIterations, Text: "any words"}, {Kind: report.KindUnknown, Text: "few iterations: compare can never find a change"}}
	assert.Equal(t, reworded[1:], ForPeople(reworded), "an old result's warning has no kind to leave out by")
}

// A command's summary has no worker row (one process: its CPUs never
// sampled, "-") and no spread; its context switches stay (issue 33).
func TestCommandSummaryHasNoWorkers(t *testing.T) {
	r := sample()
	r.Config.Workload, r.Config.Params, r.Config.Batch = "command", report.Params{}, 1
	r.Config.GOMAXPROCSPolicy = "runtime"
	r.Workers = []report.Worker{{ID: 0, MeanMs: 100, CPUMs: 300, Ops: 3, CtxSwitchesVoluntary: 305, CtxSwitchesInvoluntary: 106}}
	r.Spread = report.Spread{SlowestToFastest: 1}
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, r, "text"))
	out := buf.String()
	assert.Contains(t, out, "one run per iteration")
	assert.Contains(t, out, "\n  Switches:          305 voluntary, 106 involuntary over the 3 runs\n")
	for _, gone := range []string{"Workers:", "worker", "Spread:", "CPUs  migrations"} {
		assert.NotContains(t, out, gone)
	}
}

// The contention line: the wait, its share, and the kernel's figures.
func TestContentionText(t *testing.T) {
	assert.Equal(t, "", ContentionText(nil))
	o, s, f, ss, fs := 0.4, 30.0, 10.0, 0.075, 0.025
	got := ContentionText(&report.Contention{Threads: 3, RunDelayMs: 60, ThrottledMs: 40, WaitMs: 20, OnCPUMs: 380, WaitShare: 0.05, OthersCPUs: &o, PressureSomeMs: &s, PressureFullMs: &f, PressureSomeShare: &ss, PressureFullShare: &fs})
	assert.Equal(t, "  Contention:        waited 20.00 ms for CPUs others held, 5.0% of the time runnable and not throttled (run delay 60.00 ms less 40.00 ms throttled, 3 threads); others used 0.40 CPUs; cpu.pressure some 30.00 ms (7.5% of the window), full 10.00 ms (2.5%)\n", got)
	assert.Equal(t, "some 30.00 ms (7.5% of the window), full not kept", PressureText(&report.Contention{PressureSomeMs: &s, PressureSomeShare: &ss}),
		"a kernel that keeps some alone")
	assert.Equal(t, "", PressureText(&report.Contention{Threads: 3}), "v1: no pressure")
}
