package render

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/throttlebench/throttlebench/internal/report"
)

// latencySample is one configuration of an open loop: 4000 responses, so
// that p50, p99 and p99.9 have intervals.
func latencySample() *report.Latency {
	period := int64(100000)
	return &report.Latency{
		SchemaVersion: report.SchemaVersion,
		Config:        report.LatencyConfig{Rate: 200, Arrivals: "poisson", WorkMs: 5, Workers: 4, Queue: 100, DurationS: 20, GOMAXPROCS: 4, GOMAXPROCSPolicy: "workers"},
		Cgroup:        report.Cgroup{Mode: "created", Version: 2, PeriodUs: &period, QuotaUs: 100000, BurstUs: 50000, EffectiveCPUs: 1},
		Host:          report.Host{Kernel: "6.1.0-18-amd64", CPUModel: "Test CPU", GoVersion: "go1.26.8"},
		Completed:     4000,
		LatencyMs:     report.LatencyMs{Mean: 6.2, Min: 5.01, P50: 5.6, P90: 8.1, P99: 21.4, P999: 48.9, Max: 60.2},
		LatencyMsCI95: &report.LatencyCI95{P50: &[2]float64{5.5, 5.7}, P99: &[2]float64{19.8, 23.5}, P999: &[2]float64{41.0, 55.3}},
	}
}

// ghaRange is github-action-benchmark's own reading of a range
// (src/extractRangeInfo.ts): a prefix, then a number of two characters
// or more.
var ghaRange = regexp.MustCompile(`^(\+-|±)\s*(\d.+)$`)

// What github-action-benchmark's customSmallerIsBetter takes: an array of
// objects with a string name and unit, a number value, and optional string
// range and extra, nothing else; the range a half-width that holds the
// whole interval.
func TestGitHubActionBenchmarkSchema(t *testing.T) {
	run, lat := sample(), latencySample()
	run.DurationsMs = []float64{100, 90, 110, 104, 96, 101, 99, 120, 95, 100}
	run.Host = lat.Host
	ms := append(RunMetrics([]*report.Report{run}), LatencyMetrics([]*report.Latency{lat})...)
	var buf bytes.Buffer
	require.NoError(t, WriteGitHubActionBenchmark(&buf, ms))

	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	var entries []map[string]any
	require.NoError(t, dec.Decode(&entries))
	require.Len(t, entries, len(ms))
	names := map[string]bool{}
	ranges := 0
	for i, e := range entries {
		for k := range e {
			assert.Contains(t, []string{"name", "unit", "value", "range", "extra"}, k, "no key the tool does not define")
		}
		name, ok := e["name"].(string)
		require.True(t, ok, "name is a string: %v", e)
		assert.False(t, names[name], "names are unique: %s", name)
		names[name] = true
		unit, ok := e["unit"].(string)
		assert.True(t, ok && unit != "", "unit is a string: %v", e)
		v, ok := e["value"].(json.Number)
		require.True(t, ok, "value is a number: %v", e)
		value, err := v.Float64()
		require.NoError(t, err)
		assert.Equal(t, ms[i].Value, value)
		extra, ok := e["extra"].(string)
		assert.True(t, ok && strings.Contains(extra, "kernel: "), "extra says the configuration: %v", e)
		if r, has := e["range"]; has {
			ranges++
			s, ok := r.(string)
			require.True(t, ok, "range is a string: %v", e)
			m := ghaRange.FindStringSubmatch(s)
			require.NotNil(t, m, "the tool reads the range %q", s)
			half, err := strconv.ParseFloat(m[2], 64)
			require.NoError(t, err, s)
			require.NotNil(t, ms[i].Lower)
			// Within float noise: 5.7 − 5.6 is 0.10000000000000053.
			assert.GreaterOrEqual(t, half*(1+1e-9), value-*ms[i].Lower, "%s holds the interval's low end", name)
			assert.GreaterOrEqual(t, half*(1+1e-9), *ms[i].Upper-value, "%s holds its high end", name)
		}
	}
	assert.Equal(t, 4, ranges, "run's median; latency's p50, p99, p99.9 (p90 and the mean have no interval)")
	assert.Contains(t, names, "Latency/cpus=1/period=100ms/burst=50ms/workers=4/gomaxprocs=4/work=5ms/rate=200/arrivals=poisson - p99_ms")

	buf.Reset()
	require.NoError(t, WriteGitHubActionBenchmark(&buf, nil))
	assert.JSONEq(t, "[]", buf.String(), "nothing measured: an empty array, never null")
}

// What Bencher's BMF takes (its JSON schema, bencher.dev/bmf.json): an
// object of benchmarks, each an object of measures, each with a number
// value and optional number lower_value and upper_value; ours keep lower
// ≤ value ≤ upper, and names within Bencher's lengths.
func TestBMFSchema(t *testing.T) {
	run, lat := sample(), latencySample()
	run.DurationsMs = []float64{100, 90, 110, 104, 96, 101, 99, 120, 95, 100}
	var buf bytes.Buffer
	require.NoError(t, WriteBMF(&buf, append(RunMetrics([]*report.Report{run}), LatencyMetrics([]*report.Latency{lat})...)))

	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	var doc map[string]map[string]map[string]any
	require.NoError(t, dec.Decode(&doc))
	require.Len(t, doc, 2, "a benchmark per configuration")
	bounded := 0
	for bench, measures := range doc {
		assert.LessOrEqual(t, len(bench), 1024, "Bencher's longest benchmark name")
		assert.NotEmpty(t, measures)
		for measure, m := range measures {
			assert.LessOrEqual(t, len(measure), 64, "Bencher's longest measure name")
			num := map[string]float64{}
			for k, v := range m {
				assert.Contains(t, []string{"value", "lower_value", "upper_value"}, k)
				n, ok := v.(json.Number)
				require.True(t, ok, "%s %s %s is a number: %v", bench, measure, k, v)
				f, err := n.Float64()
				require.NoError(t, err)
				num[k] = f
			}
			require.Contains(t, num, "value", "value is required")
			_, lo := num["lower_value"]
			_, hi := num["upper_value"]
			assert.Equal(t, lo, hi, "both bounds or neither")
			if lo {
				bounded++
				assert.LessOrEqual(t, num["lower_value"], num["value"], "%s %s", bench, measure)
				assert.LessOrEqual(t, num["value"], num["upper_value"], "%s %s", bench, measure)
			}
		}
	}
	l := doc["Latency/cpus=1/period=100ms/burst=50ms/workers=4/gomaxprocs=4/work=5ms/rate=200/arrivals=poisson"]
	require.NotNil(t, l)
	assert.Equal(t, []string{"mean_ms", "p50_ms", "p90_ms", "p999_ms", "p99_ms"}, keys(l))
	assert.Equal(t, 4, bounded)

	buf.Reset()
	require.NoError(t, WriteBMF(&buf, nil))
	assert.JSONEq(t, "{}", buf.String())
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// A list that runs one configuration twice keeps both figures: both
// tools key a figure by its name.
func TestMetricsOfARepeatedConfiguration(t *testing.T) {
	ms := LatencyMetrics([]*report.Latency{latencySample(), latencySample()})
	var buf bytes.Buffer
	require.NoError(t, WriteBMF(&buf, ms))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	assert.Len(t, doc, 2)
	assert.Contains(t, doc, "Latency/cpus=1/period=100ms/burst=50ms/workers=4/gomaxprocs=4/work=5ms/rate=200/arrivals=poisson #2")
}

// A figure that is no number, or an interval that does not hold its
// figure, is left out rather than written as JSON cannot say it.
func TestMetricsLeaveOutWhatTheToolsCannotTake(t *testing.T) {
	lat := latencySample()
	lat.LatencyMsCI95.P99 = &[2]float64{22, 23} // above its p99
	none := latencySample()
	none.LatencyMs = report.LatencyMs{None: true}
	ms := LatencyMetrics([]*report.Latency{lat, none})
	require.Len(t, ms, 5, "no figure for a configuration where nothing completed")
	for _, m := range ms {
		if m.Measure == "p99_ms" {
			assert.Nil(t, m.Lower)
			assert.Nil(t, m.Upper)
		}
	}
	assert.Empty(t, addMetric(nil, Metric{Name: "x", Measure: "y", Value: 1, Lower: f64(0), Upper: f64(math.NaN())}))
}

// Every gobench output carries the configuration lines and marks every
// unit it writes lower-is-better, as benchfmt reads them.
func TestGobenchConfigurationAndUnits(t *testing.T) {
	run := sample()
	run.Host = report.Host{Kernel: "6.18.0-1-amd64", CPUModel: "Test CPU", GoVersion: "go1.26.8"}
	run.CountersPerIteration = []report.IterationCounters{{CPUMs: 40}, {CPUMs: 41}, {CPUMs: 39}}
	for _, c := range []struct {
		name   string
		write  func(*bytes.Buffer) error
		config map[string]string
		units  []string
	}{
		{"run", func(b *bytes.Buffer) error { return WriteGobench(b, []*report.Report{run}) },
			map[string]string{"kernel": "6.18.0-1-amd64", "throttle-model": "per-task", "cgroup-version": "1", "quota": "50ms", "period": "100ms", "burst": "0s", "gomaxprocs": "2"},
			[]string{"sec/op", "cpu-sec/op", "throttled-frac", "model-ratio"}},
		{"latency", func(b *bytes.Buffer) error { return WriteLatencies(b, []*report.Latency{latencySample()}, Gobench) },
			map[string]string{"kernel": "6.1.0-18-amd64", "throttle-model": "per-queue", "cgroup-version": "2", "quota": "100ms", "period": "100ms", "burst": "50ms", "gomaxprocs": "4"},
			[]string{"p50_ms", "p90_ms", "p99_ms", "p999_ms", "mean_ms"}},
	} {
		var buf bytes.Buffer
		require.NoError(t, c.write(&buf), c.name)
		rd := benchfmt.NewReader(&buf, c.name)
		var res *benchfmt.Result
		for rd.Scan() {
			switch rec := rd.Result().(type) {
			case *benchfmt.Result:
				res = rec.Clone()
			case *benchfmt.SyntaxError:
				t.Fatalf("%s: %v", c.name, rec)
			}
		}
		require.NoError(t, rd.Err())
		require.NotNil(t, res, c.name)
		for k, v := range c.config {
			assert.Equal(t, v, string(res.GetConfig(k)), "%s: %s", c.name, k)
		}
		var units []string
		for _, v := range res.Values {
			units = append(units, v.Unit)
			assert.Equal(t, "lower", rd.Units()[benchfmt.UnitMetadataKey{Unit: v.Unit, Key: "better"}].Value, "%s: %s", c.name, v.Unit)
		}
		assert.Equal(t, c.units, units, c.name)
	}
	var buf bytes.Buffer
	require.NoError(t, WriteLatencies(&buf, []*report.Latency{latencySample()}, Gobench))
	assert.Contains(t, buf.String(), "\t4000\t5.6 p50_ms\t8.1 p90_ms\t21.4 p99_ms\t48.9 p999_ms\t6.2 mean_ms\n", "the completed requests, each figure in ms")
}

// A sweep's configurations each say theirs: a line where it changes.
func TestGobenchConfigurationPerConfiguration(t *testing.T) {
	a, b := sample(), sample()
	b.Cgroup.QuotaUs = 25000
	var buf bytes.Buffer
	require.NoError(t, WriteGobench(&buf, []*report.Report{a, b}))
	out := buf.String()
	assert.Equal(t, 1, strings.Count(out, "period: 100ms\n"), "unchanged, said once")
	assert.Less(t, strings.Index(out, "quota: 25ms\n"), strings.Index(out, "BenchmarkThrottle/cpus=0.25/"), "before the configuration it is of")
	assert.Greater(t, strings.Index(out, "quota: 25ms\n"), strings.Index(out, "BenchmarkThrottle/cpus=0.5/"), "after the one before")
	assert.Equal(t, 1, strings.Count(out, "Unit ns/op better=lower\n"), "a unit's line once")
}

// Each axis a latency list may vary tells its rows apart.
func TestLatencyGobenchNames(t *testing.T) {
	seen := map[string]string{}
	for what, change := range map[string]func(*report.Latency){
		"base":       func(*report.Latency) {},
		"cpus":       func(l *report.Latency) { l.Cgroup.QuotaUs = 50000 },
		"max":        func(l *report.Latency) { l.Cgroup.QuotaUs = -1 },
		"period":     func(l *report.Latency) { p := int64(10000); l.Cgroup.PeriodUs, l.Cgroup.QuotaUs = &p, 10000 },
		"burst":      func(l *report.Latency) { l.Cgroup.BurstUs = 0 },
		"workers":    func(l *report.Latency) { l.Config.Workers = 2 },
		"gomaxprocs": func(l *report.Latency) { l.Config.GOMAXPROCS = 1 },
		"work":       func(l *report.Latency) { l.Config.WorkMs = 2.5 },
		"rate":       func(l *report.Latency) { l.Config.Rate = 46.5 },
		"arrivals":   func(l *report.Latency) { l.Config.Arrivals = "onoff" },
		"wait":       func(l *report.Latency) { l.Config.WaitMs = 2 },
		"instances": func(l *report.Latency) {
			l.Config.InstancesConfig = &report.InstancesConfig{Instances: "per-request"}
		},
	} {
		l := latencySample()
		change(l)
		name := LatencyGobenchName(l)
		assert.NotContains(t, seen, name, "%s names as %s did", what, seen[name])
		assert.NotContains(t, name, " ", "a name is one field")
		seen[name] = what
	}
	assert.Contains(t, seen, "BenchmarkLatency/cpus=0.5/period=100ms/burst=50ms/workers=4/gomaxprocs=4/work=5ms/rate=200/arrivals=poisson")
	assert.Contains(t, seen, "BenchmarkLatency/cpus=1/period=100ms/burst=50ms/workers=4/gomaxprocs=4/work=2.5ms/rate=200/arrivals=poisson")
}

func TestThrottleModel(t *testing.T) {
	for kernel, want := range map[string]string{
		"6.18.0-1-amd64": "per-task", "6.18-rc1": "per-task", "7.0.0": "per-task", "6.19.2": "per-task",
		"6.17.9": "per-queue", "6.1.0-18-amd64": "per-queue", "5.15.0-91-generic": "per-queue",
		"": "", "linux": "", "6": "",
	} {
		assert.Equal(t, want, ThrottleModel(kernel), kernel)
	}
}

// A range is read by github-action-benchmark's pattern and never narrower
// than the interval it stands for.
func TestRangeText(t *testing.T) {
	for v, want := range map[float64]string{3: "3.0", 1.234: "1.24", 0.1000000000000005: "0.1", 1234.5: "1240.0", 0: "0.0", 0.0123: "0.0123"} {
		got := rangeText(v)
		assert.Equal(t, want, got, "%v", v)
		assert.Regexp(t, ghaRange, "± "+got)
	}
}
