package build

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/report"
)

func i64(v int64) *int64 { return &v }

// quiet is a run that deserves no warning: 10 iterations of 200 ms at half
// a CPU of a 100 ms period, 100 ms of CPU each, 20 periods counted.
func quiet() *report.Report {
	r := &report.Report{
		Config: report.Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 100, Iterations: 10, Workers: 1, GOMAXPROCS: 1},
		Cgroup: report.Cgroup{Mode: "created", Path: "/throttlebench/tb-1", PeriodUs: i64(100000), QuotaUs: 50000, EffectiveCPUs: 0.5},
		Host:   report.Host{NumCPU: 2},
		Stats:  report.Stats{N: 10, MeanMs: 200},
		Model:  report.Model{CPUMsPerIteration: 100, Parallelism: 0.5, ExpectedMs: 200, Ratio: 1},
	}
	for range 10 {
		r.DurationsMs = append(r.DurationsMs, 200)
	}
	r.Workers = []report.Worker{{ID: 0, MeanMs: 200, CPUMs: 1000}}
	r.Throttling.NrPeriods = u64(20)
	return r
}

// headline is what tables show of a warning.
func headline(w string) string { h, _, _ := strings.Cut(w, ": "); return h }

// headlineKinds are the rules' headlines and the kind each carries:
// headlines fails a test whose warning's words and kind have parted.
var headlineKinds = map[string]string{
	"few periods": report.KindFewPeriods, "short iterations": report.KindShortIterations,
	"few iterations": report.KindFewIterations, "throttled below quota": report.KindUnusedQuota,
	"shared cgroup": report.KindCgroupOthers, "busy machine": report.KindBusyMachine,
	"worker changed threads": report.KindWorkerMoved, "few requests": report.KindFewRequests,
	"no p99.9 interval": report.KindNoP999Interval, "wide interval": report.KindWideInterval,
	"dropped requests": report.KindDroppedRequests, "overload": report.KindOverload,
	"late dispatch": report.KindLateDispatch, "late dispatcher": report.KindLateDispatcher,
	"near the floor": report.KindNearFloor, "no 100 ms peak": report.KindNoPeak,
	"nothing served": report.KindNothingServed, "failed requests": report.KindFailedRequests,
	"failed cold starts": report.KindFailedColdStarts, "instances beyond the machine": report.KindInstancesOverMachine,
	"cpu partly unknown": report.KindCPUUnknown, "failed run": report.KindFailedRun,
}

// headlines are what tables show of ws, each checked against its kind.
func headlines(ws []report.Warning) []string {
	var out []string
	for _, w := range ws {
		h := headline(w.Text)
		if k, ok := headlineKinds[h]; ok && k != w.Kind {
			panic(fmt.Sprintf("warning %q has kind %q, its rule's is %q", w.Text, w.Kind, k))
		}
		out = append(out, h)
	}
	return out
}

func TestQuietRunHasNoWarnings(t *testing.T) {
	assert.Empty(t, Check(quiet(), Background{}, DefaultThresholds))
}

func TestFewPeriods(t *testing.T) {
	// The kernel counted 3 periods: the measured cgroup's own quota binds.
	r := quiet()
	r.Throttling.NrPeriods = u64(3)
	w := Check(r, Background{}, DefaultThresholds)
	require.Equal(t, []string{"few periods"}, headlines(w))
	assert.Contains(t, w[0].Text, "span 2000.0 ms, 3 CFS periods of 100ms")
	assert.Contains(t, w[0].Text, "raise --iterations or use --min-time 1s")

	r.Throttling.NrPeriods = u64(1)
	assert.Contains(t, Check(r, Background{}, DefaultThresholds)[0].Text, ", 1 CFS period of 100ms;")

	r.Throttling.NrPeriods = u64(10)
	assert.Empty(t, Check(r, Background{}, DefaultThresholds), "10 periods are enough")

	// No count from the kernel: the window says 450 ms / 100 ms.
	r = quiet()
	r.Throttling.NrPeriods = nil
	r.DurationsMs = []float64{150, 150, 150}
	r.Stats.N = 3
	w = Check(r, Background{}, DefaultThresholds)
	require.Contains(t, headlines(w), "few periods")
	assert.Contains(t, w[0].Text, "span 450.0 ms, about 4.5 CFS periods of 100ms")
	assert.Contains(t, w[0].Text, "22% of it", "a period is 22% of 450 ms")

	// The binding quota is an ancestor's, with its own period: the leaf's
	// count of 0 says nothing, the window does.
	r = quiet()
	r.Cgroup.QuotaUs = -1
	r.Throttling.NrPeriods = u64(0)
	r.Cgroup.Levels = []report.Level{{Dir: "/sys/fs/cgroup/pod", PeriodUs: 250000, QuotaUs: 125000}}
	r.Model.CPUMsPerIteration = 200 // more than the quota of 125 ms
	w = Check(r, Background{}, DefaultThresholds)
	require.Equal(t, []string{"few periods"}, headlines(w))
	assert.Contains(t, w[0].Text, "about 8.0 CFS periods of 250ms")
	assert.Contains(t, w[0].Text, "--min-time 2.5s")
}

// A quota that cannot bind (more CPUs than the run can use) and no quota
// at all have no periods worth a warning.
func TestNoBindingQuotaNoPeriodWarnings(t *testing.T) {
	for _, quotaUs := range []int64{-1, 150000} { // unlimited; 1.5 CPUs for one worker
		r := quiet()
		r.Cgroup.QuotaUs = quotaUs
		r.Throttling.NrPeriods = u64(1)
		r.Model.CPUMsPerIteration = 1
		assert.Empty(t, Check(r, Background{}, DefaultThresholds), "quota %d", quotaUs)
	}
	// Two workers on two CPUs can use 1.5 CPUs: that quota binds.
	r := quiet()
	r.Cgroup.QuotaUs = 150000
	r.Config.Workers, r.Config.GOMAXPROCS = 2, 2
	r.Throttling.NrPeriods = u64(1)
	assert.Contains(t, headlines(Check(r, Background{}, DefaultThresholds)), "few periods")
}

func TestShortIterations(t *testing.T) {
	// --cpus 0.5 --batch 20: 20 ms of CPU per iteration, below the 50 ms quota.
	r := quiet()
	r.Config.Batch = 20
	r.Model.CPUMsPerIteration = 20
	w := Check(r, Background{}, DefaultThresholds)
	require.Equal(t, []string{"short iterations"}, headlines(w))
	assert.Contains(t, w[0].Text, "needs 20.00 ms of CPU, less than the 50ms quota per 100ms period")
	assert.Contains(t, w[0].Text, "model ratio drifts below 1")
	assert.Contains(t, w[0].Text, "use --batch 100 or more", "two periods' worth: 100 ms of CPU")

	r.Model.CPUMsPerIteration = 50
	assert.Empty(t, Check(r, Background{}, DefaultThresholds), "a whole quota's worth is a period long")
}

func TestFewIterationsForCompare(t *testing.T) {
	r := quiet()
	r.Stats.N = 3
	w := Check(r, Background{}, DefaultThresholds)
	require.Equal(t, []string{"few iterations"}, headlines(w))
	assert.Contains(t, w[0].Text, "3+3 iterations")
	assert.Contains(t, w[0].Text, "needs 4 on each side for p<0.05")

	r.Stats.N = 4
	assert.Empty(t, Check(r, Background{}, DefaultThresholds))
	th := DefaultThresholds
	th.Alpha = 0.01
	assert.Contains(t, headlines(Check(r, Background{}, th)), "few iterations", "4+4 cannot reach p<0.01")
}

func TestGOMAXPROCSBelowWorkers(t *testing.T) {
	r := quiet()
	r.Config.Workers, r.Config.GOMAXPROCS = 3, 2
	w := Check(r, Background{}, DefaultThresholds)
	assert.Contains(t, w, report.Warning{Kind: report.KindGOMAXPROCS, Text: "GOMAXPROCS 2 is below --workers 3: workers take turns even without a CPU limit"})
}

func TestSharedCgroup(t *testing.T) {
	d := func(ms int) *time.Duration { v := time.Duration(ms) * time.Millisecond; return &v }
	r := quiet()
	r.Cgroup.Mode, r.Cgroup.Path = "current", "/user.slice/app"
	for _, c := range []struct {
		usage, process *time.Duration
		warn           bool
	}{
		{d(1000), d(900), true},  // 100 ms, 10%
		{d(1000), d(960), false}, // 40 ms, 4%: below 5%
		{d(100), d(90), true},    // 10 ms, 10%
		{d(100), d(95), false},   // 5 ms: below 10 ms
		{nil, d(90), false},      // usage unknown (a v1 cpuacct cgroup of another name)
		{d(1000), nil, false},
	} {
		w := Check(r, Background{CgroupUsage: c.usage, ProcessCPU: c.process}, DefaultThresholds)
		if !c.warn {
			assert.Empty(t, w, "%v", c)
			continue
		}
		require.Equal(t, []string{"shared cgroup"}, headlines(w), "%v", c)
		assert.Contains(t, w[0].Text, "other processes in /user.slice/app used")
		assert.Contains(t, w[0].Text, "10% of the cgroup's")
	}
}

func TestBusyMachine(t *testing.T) {
	d := func(ms int) *time.Duration { v := time.Duration(ms) * time.Millisecond; return &v }
	r := quiet() // the worker used 1000 ms of CPU
	res := 20 * time.Millisecond
	for _, c := range []struct {
		name      string
		window    time.Duration
		busy, own *time.Duration
		want      string // "" = no warning
	}{
		{"a whole other CPU", 2 * time.Second, d(3000), nil, "kept 1.00 CPUs busy"},
		{"our process's own CPU time, where known", 2 * time.Second, d(3000), d(1500), "kept 0.75 CPUs busy"},
		{"a little other load", 2 * time.Second, d(1300), nil, ""},
		{"0.205 CPUs, but within the counters' rounding", 2 * time.Second, d(1410), nil, ""},
		{"0.22 CPUs", 2 * time.Second, d(1440), nil, "kept 0.22 CPUs busy"},
		{"unknown", 2 * time.Second, nil, nil, ""},
	} {
		w := Check(r, Background{Window: c.window, MachineBusy: c.busy, BusyResolution: res, ProcessCPU: c.own}, DefaultThresholds)
		if c.want == "" {
			assert.Empty(t, w, c.name)
			continue
		}
		require.Equal(t, []string{"busy machine"}, headlines(w), c.name)
		assert.Contains(t, w[0].Text, c.want, c.name)
	}
}

// Build adds Check's warnings after the caller's own.
func TestBuildChecks(t *testing.T) {
	in := sample() // 3 iterations
	in.Warnings = []report.Warning{{Kind: report.KindCurrentCgroup, Text: "ran in the current cgroup: no cpu controller"}}
	r := Build(in)
	require.NotEmpty(t, r.Warnings)
	assert.Equal(t, in.Warnings[0], r.Warnings[0])
	assert.Contains(t, headlines(r.Warnings), "few iterations")
}

// A quota of more CPUs than the workers may use is never used up: the CPUs
// they may use are their cpuset's (allowed_cpus, as effective_cpus counts
// them), not the machine's.
func TestQuotaAboveTheCpusetDoesNotBind(t *testing.T) {
	r := quiet()
	r.Config.Workers, r.Config.GOMAXPROCS = 2, 2
	r.Cgroup.QuotaUs = 150000 // 1.5 CPUs of a 2-CPU machine
	r.Model.CPUMsPerIteration = 300
	r.Throttling.NrPeriods = u64(3)
	assert.Equal(t, []string{"few periods"}, headlines(Check(r, Background{}, DefaultThresholds)), "1.5 of 2 CPUs binds")
	r.Cgroup.AllowedCPUs = "1"
	assert.Empty(t, Check(r, Background{}, DefaultThresholds), "1.5 CPUs of a cpuset of 1 never binds")
	r.Cgroup.AllowedCPUs = "0-1"
	assert.Equal(t, []string{"few periods"}, headlines(Check(r, Background{}, DefaultThresholds)))
}

// Every rule at once, for the headlines tables show.
func TestHeadlinesAreShort(t *testing.T) {
	d := func(ms int) *time.Duration { v := time.Duration(ms) * time.Millisecond; return &v }
	r := quiet()
	r.Config.Workers, r.Config.GOMAXPROCS = 2, 1
	r.Stats.N, r.Throttling.NrPeriods, r.Model.CPUMsPerIteration = 2, u64(1), 10
	w := Check(r, Background{Window: time.Second, MachineBusy: d(2000), CgroupUsage: d(1000), ProcessCPU: d(500)}, DefaultThresholds)
	assert.Len(t, w, 6)
	for _, h := range headlines(w) {
		assert.LessOrEqual(t, len(h), 40, h)
	}
}

// withUsage sets r's counters: throttled in throttled of periods, and a
// quota utilisation of util (quiet's 50 ms quota over those periods).
func withUsage(r *report.Report, throttled, periods uint64, util float64) *report.Report {
	f := float64(throttled) / float64(periods)
	cpu := util * 50 * float64(periods)
	src := report.SourceCgroup
	r.Throttling = report.Throttling{NrPeriods: u64(periods), NrThrottled: u64(throttled), ThrottledFraction: &f}
	r.Usage = report.Usage{CPUMs: &cpu, QuotaUtilisation: &util, Source: &src}
	return r
}

// Throttled in most periods while using a small part of the quota: the
// fibtest signature, with its numbers.
func TestThrottledBelowQuota(t *testing.T) {
	w := Check(withUsage(quiet(), 180, 200, 0.15), Background{}, DefaultThresholds)
	require.Equal(t, []string{"throttled below quota"}, headlines(w))
	assert.Contains(t, w[0].Text, "throttled in 180 of 200 periods (90%) while using 15% of the quota over them (1500.0 ms of CPU of 10.00 s)")
	assert.Contains(t, w[0].Text, "at least about 90% of it")
	assert.Contains(t, w[0].Text, "fixed in 5.4")
}

// The rule against the bound a legitimate run obeys: a throttled period
// used its quota, so the utilisation is at least about the throttled
// fraction f. The same f, half the periods throttled, is silent when the
// utilisation is f or a little above (a bursty workload: throttled
// periods used all, the others little), and warns well below it.
func TestThrottledBelowQuotaRule(t *testing.T) {
	for _, tc := range []struct {
		name               string
		throttled, periods uint64
		util               float64
		burst              bool
		warn               bool
	}{
		{name: "fibtest-like", throttled: 50, periods: 100, util: 0.2, warn: true},
		{name: "bursty, legitimate", throttled: 50, periods: 100, util: 0.55},
		{name: "bursty, at the bound less an edge period", throttled: 50, periods: 100, util: 0.49},
		{name: "just below 0.7 f", throttled: 50, periods: 100, util: 0.349, warn: true},
		{name: "at 0.7 f", throttled: 50, periods: 100, util: 0.35},
		// Burst lets a period use more than its quota: the utilisation only
		// grows, above 1 even, and stays silent.
		{name: "with burst", throttled: 60, periods: 100, util: 1.2, burst: true},
		{name: "with burst, throttled throughout", throttled: 100, periods: 100, util: 1.05, burst: true},
		{name: "CPU-bound, throttled throughout", throttled: 100, periods: 100, util: 0.98},
		{name: "too few throttled periods", throttled: 9, periods: 10, util: 0.05},
		{name: "ten throttled periods", throttled: 10, periods: 10, util: 0.05, warn: true},
		{name: "a small throttled fraction", throttled: 20, periods: 100, util: 0.01},
		{name: "a quarter throttled", throttled: 25, periods: 100, util: 0.1, warn: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := withUsage(quiet(), tc.throttled, tc.periods, tc.util)
			if tc.burst {
				r.Cgroup.BurstUs = 50000
				r.Throttling.NrBursts, r.Throttling.BurstMs = u64(tc.periods/2), f64(400)
			}
			w := Check(r, Background{}, DefaultThresholds)
			if tc.warn {
				assert.Equal(t, []string{"throttled below quota"}, headlines(w))
			} else {
				assert.Empty(t, w)
			}
		})
	}
}

// In the current cgroup, a utilisation from this process's CPU time alone
// (the cgroup has no usage counter) leaves out the others in it, whose
// use of the quota the throttling counts: the rule says nothing then. From
// the cgroup's counter it judges; in a created slice the workload's own CPU
// time is the slice's (it is alone there).
func TestThrottledBelowQuotaNeedsTheWholeCgroupsUsage(t *testing.T) {
	process := report.SourceProcess
	r := withUsage(quiet(), 180, 200, 0.15)
	r.Cgroup.Mode = "current"
	assert.Equal(t, []string{"throttled below quota"}, headlines(Check(r, Background{}, DefaultThresholds)), "the cgroup's counter")
	r.Usage.Source = &process
	assert.Empty(t, Check(r, Background{}, DefaultThresholds), "this process's CPU time, others in the cgroup unseen")
	r.Cgroup.Mode = "created"
	assert.Equal(t, []string{"throttled below quota"}, headlines(Check(r, Background{}, DefaultThresholds)), "the workload alone in its slice")
}

// Without a utilisation (no quota of the cgroup's own, no CPU time) the
// rule cannot judge, and says nothing.
func TestThrottledBelowQuotaNeedsTheUtilisation(t *testing.T) {
	r := withUsage(quiet(), 180, 200, 0.15)
	r.Usage.QuotaUtilisation = nil
	assert.Empty(t, Check(r, Background{}, DefaultThresholds))
	r.Usage = report.Usage{}
	assert.Empty(t, Check(r, Background{}, DefaultThresholds))
}
