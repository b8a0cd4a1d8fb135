package build

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

func f64(v float64) *float64 { return &v }

// quietLatency is an open-loop run that deserves no warning: 4000
// requests of 2 ms at 100/s over 40 s in half a CPU (0.2 CPUs asked, a
// load of 0.4), enough for p99.9's interval, none dropped, every dispatch
// on time, 400 periods counted, a peak sampled, a quiet machine.
func quietLatency() LatencyInput {
	ms := time.Millisecond
	return LatencyInput{
		Open: runspec.OpenLoop{Rate: 100, Arrivals: runspec.ArrivalsPoisson, On: 50 * ms, Off: 450 * ms, Work: 2 * ms, Wait: 3 * ms,
			Workers: 2, Queue: 100, Duration: 40 * time.Second, Seed: 42, GOMAXPROCS: 2},
		Policy: "workers", Mode: "created",
		Cgroup: bandwidth.Group{Version: 2, Path: "/throttlebench/tb-1", Dir: "/sys/fs/cgroup/throttlebench/tb-1"},
		Limits: bandwidth.Limits{Period: 100 * ms, Quota: 50 * ms, Burst: 20 * ms},
		Chain:  []bandwidth.Level{{Dir: "/sys/fs/cgroup/throttlebench/tb-1", Limits: bandwidth.Limits{Period: 100 * ms, Quota: 50 * ms}}},
		NumCPU: 4,
		Result: bench.LatencyResult{Offered: 4000, Completed: 4000, Elapsed: 40 * time.Second,
			Mean: 3 * ms, Min: 2 * ms, P50: 2500 * time.Microsecond, P90: 4 * ms, P99: 9 * ms, P999: 15 * ms, Max: 20 * ms,
			Histogram: "HISTFAKE", Calibration: bench.Calibration{IterationsPerMs: 1234, Rounds: 5},
			GOMAXPROCS: 2, WorkerCPU: []time.Duration{4 * time.Second, 4 * time.Second}, Late: ms,
			Floor: &bench.Floor{Wakeups: 200, Arrivals: runspec.ArrivalsPoisson, Interval: ms, P50: 60 * time.Microsecond, P99: 100 * time.Microsecond,
				P999: 300 * time.Microsecond, Max: 400 * time.Microsecond, Took: 205 * ms}},
		Stat:      bandwidth.CPUStat{NrPeriods: u64(400), NrThrottled: u64(20), ThrottledTime: dur(30 * ms)},
		Host:      report.Host{Kernel: "6.1", NumCPU: 4},
		Window:    40 * time.Second,
		CPU:       dur(8 * time.Second),
		CPUSource: report.SourceProcess,
		// 0.6 CPUs in the busiest 100 ms.
		Peak100: f64(0.6),
	}
}

func TestBuildLatencyQuiet(t *testing.T) {
	r := BuildLatency(quietLatency())
	assert.Empty(t, r.Warnings)
	assert.NotNil(t, r.Warnings, "[] in JSON, not null")
	assert.Equal(t, report.SchemaVersion, r.SchemaVersion)

	assert.Equal(t, report.LatencyConfig{Rate: 100, Arrivals: "poisson", WorkMs: 2, WaitMs: 3, Workers: 2, Queue: 100, DurationS: 40, Seed: 42,
		GOMAXPROCS: 2, GOMAXPROCSPolicy: "workers"}, r.Config, "on and off shaped nothing: 0")
	assert.Equal(t, "created", r.Cgroup.Mode)
	assert.Equal(t, "/throttlebench/tb-1", r.Cgroup.Path)
	require.NotNil(t, r.Cgroup.PeriodUs)
	assert.Equal(t, int64(100_000), *r.Cgroup.PeriodUs)
	assert.Equal(t, int64(50_000), r.Cgroup.QuotaUs)
	assert.Equal(t, int64(20_000), r.Cgroup.BurstUs)
	assert.InDelta(t, 0.5, r.Cgroup.EffectiveCPUs, 1e-12)
	assert.Equal(t, "6.1", r.Host.Kernel)

	assert.InDelta(t, 100, r.OfferedRPS, 1e-9, "4000 offered / 40 s")
	assert.InDelta(t, 100, r.AchievedRPS, 1e-9, "4000 completed / 40 s")
	assert.Equal(t, 4000, r.Offered)
	assert.Equal(t, 4000, r.Completed)
	assert.Equal(t, 0, r.Dropped)

	require.NotNil(t, r.CPUMs)
	assert.InDelta(t, 8000, *r.CPUMs, 1e-9)
	assert.InDelta(t, 40000, r.WindowMs, 1e-9)
	require.NotNil(t, r.CPUUtilisation)
	assert.InDelta(t, 0.4, *r.CPUUtilisation, 1e-12, "8 s / (40 s × 0.5 CPUs)")
	require.NotNil(t, r.PeakCPUs100ms)
	assert.Equal(t, 0.6, *r.PeakCPUs100ms)
	// usage, from the same CPU time: 8 s against 50 ms × 400 periods.
	require.NotNil(t, r.Usage.CPUMs)
	assert.InDelta(t, 8000, *r.Usage.CPUMs, 1e-9)
	require.NotNil(t, r.Usage.QuotaUtilisation)
	assert.InDelta(t, 0.4, *r.Usage.QuotaUtilisation, 1e-12, "8 s / (50 ms × 400 periods)")
	require.NotNil(t, r.Usage.Source)
	assert.Equal(t, "process", *r.Usage.Source)

	assert.Equal(t, report.LatencyMs{Mean: 3, Min: 2, P50: 2.5, P90: 4, P99: 9, P999: 15, Max: 20}, r.LatencyMs)
	require.NotNil(t, r.Throttling.NrPeriods)
	assert.Equal(t, uint64(400), *r.Throttling.NrPeriods)
	require.NotNil(t, r.Throttling.ThrottledFraction)
	assert.InDelta(t, 0.05, *r.Throttling.ThrottledFraction, 1e-12)
	require.NotNil(t, r.Throttling.ThrottledMs)
	assert.Equal(t, 30.0, *r.Throttling.ThrottledMs)

	// The CFS model: 100/s × 2 ms = 0.2 CPUs asked of 0.5.
	assert.InDelta(t, 0.2, r.Model.OfferedCPUs, 1e-12)
	assert.InDelta(t, 0.4, r.Model.OfferedLoad, 1e-12)
	assert.Equal(t, 1.0, r.DispatchLateMs)
	assert.Equal(t, []float64{4000, 4000}, r.WorkerCPUMs)
	assert.Equal(t, "HISTFAKE", r.Histogram)
	assert.Equal(t, 1234.0, r.Calibration.IterationsPerMs)
}

// offered_rps is per second of --duration; achieved_rps per second of the
// longer of --duration and the time from the first arrival to the last
// completion.
func TestBuildLatencyRates(t *testing.T) {
	in := quietLatency()
	in.Open.Duration = 10 * time.Second
	in.Result.Offered, in.Result.Completed, in.Result.Dropped = 1500, 1400, 100
	in.Result.Elapsed = 14 * time.Second // overloaded: the last request ends 4 s after the schedule
	r := BuildLatency(in)
	assert.InDelta(t, 150, r.OfferedRPS, 1e-9, "1500 / 10 s")
	assert.InDelta(t, 100, r.AchievedRPS, 1e-9, "1400 / 14 s")

	// Keeping up: the last completion comes a little before the end of
	// the schedule (its last arrival does), and what was offered is achieved.
	in.Result.Offered, in.Result.Completed, in.Result.Dropped = 1000, 1000, 0
	in.Result.Elapsed = 9500 * time.Millisecond
	r = BuildLatency(in)
	assert.InDelta(t, 100, r.OfferedRPS, 1e-9)
	assert.InDelta(t, 100, r.AchievedRPS, 1e-9, "1000 / max(10 s, 9.5 s)")

	// Nothing to divide by: 0, not NaN or Inf.
	in.Open.Duration, in.Result.Elapsed = 0, 0
	r = BuildLatency(in)
	assert.Zero(t, r.OfferedRPS)
	assert.Zero(t, r.AchievedRPS)
	_, err := json.Marshal(r)
	assert.NoError(t, err)
}

// --on and --off are reported only where they shaped the arrivals.
func TestBuildLatencyOnOff(t *testing.T) {
	for _, arr := range []string{runspec.ArrivalsFixed, runspec.ArrivalsPoisson} {
		in := quietLatency()
		in.Open.Arrivals = arr
		r := BuildLatency(in)
		assert.Equal(t, arr, r.Config.Arrivals)
		assert.Zero(t, r.Config.OnMs, arr)
		assert.Zero(t, r.Config.OffMs, arr)
	}
	in := quietLatency()
	in.Open.Arrivals = runspec.ArrivalsOnOff
	r := BuildLatency(in)
	assert.Equal(t, 50.0, r.Config.OnMs)
	assert.Equal(t, 450.0, r.Config.OffMs)
}

// The model's load is over the effective CPUs: the tightest of the chain's
// quotas and the machine; the utilisation likewise.
func TestBuildLatencyModel(t *testing.T) {
	in := quietLatency()
	in.Open.Rate, in.Open.Work = 400, 5*time.Millisecond // 2 CPUs asked
	in.Chain = append(in.Chain, bandwidth.Level{Dir: "/pod", Limits: bandwidth.Limits{Period: 100 * time.Millisecond, Quota: 25 * time.Millisecond}})
	r := BuildLatency(in)
	assert.InDelta(t, 2, r.Model.OfferedCPUs, 1e-12)
	assert.InDelta(t, 0.25, r.Cgroup.EffectiveCPUs, 1e-12, "the ancestor's 0.25 binds")
	assert.InDelta(t, 8, r.Model.OfferedLoad, 1e-12)
	assert.InDelta(t, 4.0/(20*0.25), *r.CPUUtilisation, 1e-12)
	assert.Contains(t, headlines(r.Warnings), "overload")

	// No quota anywhere: the machine's CPUs.
	in = quietLatency()
	in.Limits.Quota, in.Limits.Burst = bandwidth.Unlimited, 0
	in.Chain = []bandwidth.Level{{Dir: "/x", Limits: bandwidth.Limits{Period: 100 * time.Millisecond, Quota: bandwidth.Unlimited}}}
	r = BuildLatency(in)
	assert.InDelta(t, 4, r.Cgroup.EffectiveCPUs, 1e-12)
	assert.InDelta(t, 0.05, r.Model.OfferedLoad, 1e-12, "0.2 of 4 CPUs")
	assert.Equal(t, int64(-1), r.Cgroup.QuotaUs)
	assert.InDelta(t, 4.0/(20*4), *r.CPUUtilisation, 1e-12)
}

// Unknown stays unknown: no CPU time, no utilisation; no window, no
// utilisation either.
func TestBuildLatencyUnknowns(t *testing.T) {
	in := quietLatency()
	in.CPU, in.Peak100 = nil, nil
	r := BuildLatency(in)
	assert.Nil(t, r.CPUMs)
	assert.Nil(t, r.CPUUtilisation)
	assert.Nil(t, r.PeakCPUs100ms)
	assert.Equal(t, report.Usage{}, r.Usage)

	// No quota of the cgroup's own, or no period counted: the CPU time
	// stands, its quota utilisation is null.
	in = quietLatency()
	in.Limits.Quota = bandwidth.Unlimited
	r = BuildLatency(in)
	require.NotNil(t, r.Usage.CPUMs)
	assert.Nil(t, r.Usage.QuotaUtilisation)
	in = quietLatency()
	in.Stat.NrPeriods = u64(0)
	r = BuildLatency(in)
	require.NotNil(t, r.Usage.CPUMs)
	assert.Nil(t, r.Usage.QuotaUtilisation)

	in = quietLatency()
	in.Window = 0
	r = BuildLatency(in)
	require.NotNil(t, r.CPUMs)
	assert.Nil(t, r.CPUUtilisation)
}

// The runner's warnings come first, the rules' after them; the input is
// not written to.
func TestBuildLatencyKeepsGivenWarnings(t *testing.T) {
	in := quietLatency()
	given := make([]report.Warning, 1, 4)
	given[0] = report.Warning{Kind: report.KindCurrentCgroup, Text: "ran in the current cgroup: no cpu controller"}
	in.Warnings = given
	in.Peak100 = nil
	r := BuildLatency(in)
	assert.Equal(t, []string{"ran in the current cgroup", "no 100 ms peak"}, headlines(r.Warnings))
	assert.Equal(t, []report.Warning{{Kind: report.KindCurrentCgroup, Text: "ran in the current cgroup: no cpu controller"}}, given)
	assert.Empty(t, given[:2][1], "the caller's spare capacity is not written to")
}

// Each rule fires exactly when it should: the quiet run with one thing
// changed, at and just past its threshold.
func TestCheckLatencyRules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(r *report.Latency, bg *Background)
		want   []string // headlines; nil: none
		text   string   // in the warning
	}{
		{"quiet", func(*report.Latency, *Background) {}, nil, ""},
		// Too few for an interval (stats.QuantileCI): p99.9 under 3688,
		// p99 under 368; the same words at any count, for rows to share.
		{"3687 completed", func(r *report.Latency, _ *Background) { r.Completed = 3687 }, []string{"no p99.9 interval"}, "no p99.9 interval: under 3688 responses p99.9 has no 95% interval"},
		{"368 completed", func(r *report.Latency, _ *Background) { r.Completed = 368 }, []string{"no p99.9 interval"}, "p50 and p99 have theirs"},
		{"3688 completed", func(r *report.Latency, _ *Background) { r.Completed = 3688 }, nil, ""},
		{"367 completed", func(r *report.Latency, _ *Background) { r.Completed = 367 }, []string{"few requests"}, "few requests: p99 and p99.9 have no 95% interval"},
		{"5 completed", func(r *report.Latency, _ *Background) { r.Completed = 5 }, []string{"few requests"}, "few requests: p50 and p99 and p99.9 have"},
		{"none completed", func(r *report.Latency, _ *Background) { r.Completed, r.LatencyMs = 0, report.LatencyMs{None: true} }, nil, ""},
		{"dropped", func(r *report.Latency, _ *Background) { r.Dropped, r.Offered = 20, 2020 }, []string{"dropped requests"}, "20 of 2020 (1.0%) found the queue (--queue 100) full"},
		{"one dropped", func(r *report.Latency, _ *Background) { r.Dropped, r.Offered = 1, 2001 }, []string{"dropped requests"}, "1 of 2001 (0.0%)"},
		{"none dropped", func(r *report.Latency, _ *Background) { r.Dropped = 0 }, nil, ""},
		{"load 1", func(r *report.Latency, _ *Background) { r.Model.OfferedCPUs, r.Model.OfferedLoad = 0.5, 1 }, nil, ""},
		{"load above 1", func(r *report.Latency, _ *Background) { r.Model.OfferedCPUs, r.Model.OfferedLoad = 0.51, 1.02 },
			[]string{"overload"}, "ask for 0.51 CPUs (rate × work), more than the 0.50 allowed"},
		{"late 5 ms", func(r *report.Latency, _ *Background) { r.DispatchLateMs = 5 }, nil, ""},
		{"late past 5 ms", func(r *report.Latency, _ *Background) { r.DispatchLateMs = 5.01 }, []string{"late dispatch"}, "after its scheduled arrival"},
		// The quiet run's p50 is 2.5 ms, its p99 9 ms, its p99.9 15 ms.
		{"p50 within 3× of the floor's", func(r *report.Latency, _ *Background) { r.FloorMs.P50 = 0.84 }, []string{"near the floor"},
			"p50 2.50 ms within 3× of the harness's own floor (floor_ms: p50 840.0 µs;"},
		{"p50 just over 3× the floor's", func(r *report.Latency, _ *Background) { r.FloorMs.P50 = 0.83 }, nil, ""},
		{"every percentile near the floor", func(r *report.Latency, _ *Background) {
			*r.FloorMs = report.FloorMs{P50: 1, P99: 4, P999: 6}
		}, []string{"near the floor"}, "p50 2.50 ms, p99 9.00 ms, p99.9 15.00 ms within 3× of the harness's own floor (floor_ms: p50 1.00 ms, p99 4.00 ms, p99.9 6.00 ms;"},
		{"no floor measured", func(r *report.Latency, _ *Background) { r.FloorMs = nil }, nil, ""},
		{"no peak", func(r *report.Latency, _ *Background) { r.PeakCPUs100ms = nil }, []string{"no 100 ms peak"}, "shorter than two samples"},
		{"a peak of 0", func(r *report.Latency, _ *Background) { r.PeakCPUs100ms = f64(0) }, nil, ""},
		{"9 periods", func(r *report.Latency, _ *Background) { r.Throttling.NrPeriods = u64(9) }, []string{"few periods"}, "spans 9 CFS periods"},
		{"10 periods", func(r *report.Latency, _ *Background) { r.Throttling.NrPeriods = u64(10) }, nil, ""},
		{"periods not counted", func(r *report.Latency, _ *Background) { r.Throttling.NrPeriods = nil }, nil, ""},
		{"9 periods without a quota", func(r *report.Latency, _ *Background) { r.Throttling.NrPeriods, r.Cgroup.QuotaUs = u64(9), -1 }, nil, ""},
		{"9 periods without a period", func(r *report.Latency, _ *Background) { r.Throttling.NrPeriods, r.Cgroup.PeriodUs = u64(9), nil }, nil, ""},
		{"GOMAXPROCS below workers", func(r *report.Latency, _ *Background) { r.Config.GOMAXPROCS = 1 }, []string{"GOMAXPROCS 1 is below --workers 2"}, ""},
		{"GOMAXPROCS unknown", func(r *report.Latency, _ *Background) { r.Config.GOMAXPROCS = 0 }, nil, ""},
		// Others: 720 ms busy − 500 ms ours = 220 ms, less the counter's
		// 20 ms resolution = 200 ms, a fifth of the 1 s window.
		{"busy machine", func(r *report.Latency, bg *Background) { *bg = busy(720, nil) }, []string{"busy machine"}, "other processes kept 0.22 CPUs busy"},
		{"just not busy", func(r *report.Latency, bg *Background) { *bg = busy(719, nil) }, nil, ""},
		{"busy, ours unknown", func(r *report.Latency, bg *Background) { *bg = busy(900, nil); r.CPUMs = nil }, nil, ""},
		{"busy, no window", func(r *report.Latency, bg *Background) { *bg = busy(900, nil); bg.Window = 0 }, nil, ""},
		// Current mode: this process's CPU time is ours, its workers and runtime included.
		{"busy by this process", func(r *report.Latency, bg *Background) { *bg = busy(720, dur(600*time.Millisecond)) }, nil, ""},
		{"busy besides this process", func(r *report.Latency, bg *Background) { *bg = busy(900, dur(600*time.Millisecond)) }, []string{"busy machine"}, "0.30 CPUs"},
		// Current mode: others in the measured cgroup, 5% and 10 ms at least.
		{"shared cgroup", func(r *report.Latency, bg *Background) {
			bg.CgroupUsage, bg.ProcessCPU = dur(700*time.Millisecond), dur(600*time.Millisecond)
		},
			[]string{"shared cgroup"}, "used 100.0 ms of CPU during the measurement, 14% of the cgroup's"},
		{"cgroup barely shared", func(r *report.Latency, bg *Background) {
			bg.CgroupUsage, bg.ProcessCPU = dur(609*time.Millisecond), dur(600*time.Millisecond)
		}, nil, ""},
		// Throttled in 150 of 200 periods while using 20% of their quota:
		// the fibtest signature; 60% of it is a bursty run's, silent.
		{"throttled below quota", func(r *report.Latency, _ *Background) {
			r.Throttling.NrThrottled, r.Throttling.ThrottledFraction, r.Usage.QuotaUtilisation = u64(150), f64(0.75), f64(0.2)
		}, []string{"throttled below quota"}, "throttled in 150 of 400 periods (75%) while using 20% of the quota"},
		{"throttled, quota used", func(r *report.Latency, _ *Background) {
			r.Throttling.NrThrottled, r.Throttling.ThrottledFraction, r.Usage.QuotaUtilisation = u64(150), f64(0.75), f64(0.6)
		}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := BuildLatency(quietLatency())
			r.Warnings = nil
			r.CPUMs = f64(500)
			var bg Background
			tc.change(r, &bg)
			w := CheckLatency(r, bg, DefaultThresholds)
			assert.Equal(t, tc.want, headlines(w), "%q", w)
			if tc.text != "" && len(w) == 1 {
				assert.Contains(t, w[0].Text, tc.text)
			}
		})
	}
}

// busy is a 1 s window in which the machine's CPUs were busy for ms in
// all, read at 20 ms resolution; process is this process's CPU time.
func busy(ms int, process *time.Duration) Background {
	b := time.Duration(ms) * time.Millisecond
	return Background{Window: time.Second, MachineBusy: &b, BusyResolution: 20 * time.Millisecond, ProcessCPU: process}
}

// Several rules at once, in their order.
func TestCheckLatencyAllRules(t *testing.T) {
	r := BuildLatency(quietLatency())
	r.Config.GOMAXPROCS = 1
	r.Completed, r.Dropped = 300, 1500 // under 368: p99 has no interval
	r.Model.OfferedLoad = 3
	r.DispatchLateMs = 80
	r.FloorMs.P99 = 4
	r.PeakCPUs100ms = nil
	r.Throttling.NrPeriods = u64(2)
	r.CPUMs = f64(500)
	w := CheckLatency(r, busy(5000, nil), DefaultThresholds)
	assert.Equal(t, []string{"GOMAXPROCS 1 is below --workers 2", "few requests", "dropped requests", "overload",
		"late dispatch", "near the floor", "no 100 ms peak", "few periods", "busy machine"}, headlines(w))
	for _, m := range w {
		assert.NotContains(t, m.Text, "\n", "one line each")
	}
}

// The JSON is the contract: these keys, in these units.
func TestLatencyJSONKeys(t *testing.T) {
	in := quietLatency()
	in.Open.Arrivals = runspec.ArrivalsOnOff
	var buf bytes.Buffer
	require.NoError(t, report.WriteJSON(&buf, BuildLatency(in)))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))

	for _, k := range []string{"schema_version", "config", "cgroup", "host", "offered_rps", "achieved_rps", "completed", "dropped",
		"cpu_utilisation", "peak_cpus_100ms", "latency_ms", "throttling", "warnings",
		"offered", "cpu_ms", "window_ms", "model", "dispatch_late_ms", "worker_cpu_ms", "calibration", "histogram_hdr", "usage",
		"floor_ms", "floor", "latency_ms_ci95"} {
		assert.Contains(t, doc, k)
	}
	assert.Equal(t, float64(report.SchemaVersion), doc["schema_version"])
	assert.Equal(t, []any{}, doc["warnings"], "an empty list, not null")

	config, ok := doc["config"].(map[string]any)
	require.True(t, ok, "config is an object")
	want := map[string]any{"rate": 100.0, "arrivals": "onoff", "on_ms": 50.0, "off_ms": 450.0, "work_ms": 2.0, "wait_ms": 3.0,
		"workers": 2.0, "queue": 100.0, "duration_s": 40.0, "seed": 42.0}
	for k, v := range want {
		assert.Equal(t, v, config[k], "config.%s", k)
	}

	lat, ok := doc["latency_ms"].(map[string]any)
	require.True(t, ok, "latency_ms is an object")
	for k, v := range map[string]float64{"mean": 3, "p50": 2.5, "p90": 4, "p99": 9, "p999": 15, "max": 20} {
		assert.Equal(t, v, lat[k], "latency_ms.%s", k)
	}
	assert.Equal(t, 0.6, doc["peak_cpus_100ms"])
	assert.InDelta(t, 0.4, doc["cpu_utilisation"], 1e-12)
	assert.Equal(t, 100.0, doc["offered_rps"])
	assert.Equal(t, 4000.0, doc["completed"])
	assert.Equal(t, 0.0, doc["dropped"])
	_, ok = doc["throttling"].(map[string]any)
	assert.True(t, ok, "throttling is an object")
	use, ok := doc["usage"].(map[string]any)
	require.True(t, ok, "usage is an object")
	assert.Equal(t, map[string]any{"cpu_ms": 8000.0, "quota_utilisation": 0.4, "source": "process"}, use)
	_, ok = doc["cgroup"].(map[string]any)
	assert.True(t, ok, "cgroup is an object")
	_, ok = doc["host"].(map[string]any)
	assert.True(t, ok, "host is an object")

	// Unknown numbers are null, their keys still there.
	in.CPU, in.Peak100 = nil, nil
	buf.Reset()
	require.NoError(t, report.WriteJSON(&buf, BuildLatency(in)))
	doc = nil
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	for _, k := range []string{"cpu_ms", "cpu_utilisation", "peak_cpus_100ms"} {
		v, ok := doc[k]
		assert.True(t, ok, k)
		assert.Nil(t, v, k)
	}
}

// The floor's calibration comes through in ms; where it was not measured,
// floor_ms and floor are null.
func TestBuildLatencyFloor(t *testing.T) {
	r := BuildLatency(quietLatency())
	require.NotNil(t, r.FloorMs)
	assert.Equal(t, report.FloorMs{P50: 0.06, P99: 0.1, P999: 0.3}, *r.FloorMs)
	assert.Equal(t, &report.Floor{Wakeups: 200, Arrivals: "poisson", IntervalMs: 1, MaxMs: 0.4, TookMs: 205}, r.Floor)

	in := quietLatency()
	in.Result.Floor = nil
	var buf bytes.Buffer
	require.NoError(t, report.WriteJSON(&buf, BuildLatency(in)))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	assert.Contains(t, doc, "floor_ms")
	assert.Nil(t, doc["floor_ms"])
	assert.Nil(t, doc["floor"])
}
