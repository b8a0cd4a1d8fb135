package latency

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/golden"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
)

// late is docs/latency.md's late-dispatch warning (report/build's text), up to
// ms late.
func late(ms string) string {
	return "late dispatch: a request was dispatched up to " + ms + " ms after its scheduled arrival (the worker waiting for it, in the same slice, " +
		"was throttled or preempted); the response times include the delay, measured from the scheduled arrival"
}

// abRow is one row of docs/latency.md's A/B of --burst 0,100ms (--cpus 1
// --workers 4 --rate 46 --work 5ms, onoff 150ms/600ms for 25s), with its
// numbers: cpu_util, peak, mean, p50, p90, p99, p999, max, throttled of
// periods, quota_util, bursts; ci, p50's and p99's 95% intervals (1173
// responses: none for p99.9).
func abRow(burst string, m [8]float64, ci [4]float64, throttled, periods, bursts uint64, quotaUtil float64, warning string) Row {
	r := &report.Latency{
		Config: report.LatencyConfig{Rate: 46, Arrivals: runspec.ArrivalsOnOff, OnMs: 150, OffMs: 600, WorkMs: 5, Workers: 4, Queue: 1000,
			DurationS: 25, Seed: 1},
		Cgroup:     report.Cgroup{Mode: "created", Version: 1, Path: "/throttlebench/tb-32000-1830560-d556b850", EffectiveCPUs: 1},
		OfferedRPS: 46.92, AchievedRPS: 46.92, Offered: 1173, Completed: 1173,
		CPUUtilisation: f64(m[0]), PeakCPUs100ms: f64(m[1]),
		LatencyMs:     report.LatencyMs{Mean: m[2], P50: m[3], P90: m[4], P99: m[5], P999: m[6], Max: m[7]},
		LatencyMsCI95: &report.LatencyCI95{P50: &[2]float64{ci[0], ci[1]}, P99: &[2]float64{ci[2], ci[3]}},
		Model:         report.LoadModel{OfferedCPUs: 0.23, OfferedLoad: 0.2299},
		Warnings:      []report.Warning{{Kind: report.KindLateDispatch, Text: warning}},
		Calibration: report.Calibration{Loop: "xorshift64 step (3 shifts, 3 xors, one dependent chain), result kept",
			IterationsPerMs: 588670, Rounds: 9, Clock: "thread CPU time (CLOCK_THREAD_CPUTIME_ID)"},
	}
	r.Throttling.NrPeriods, r.Throttling.NrThrottled, r.Throttling.NrBursts = u64(periods), u64(throttled), u64(bursts)
	r.Usage.QuotaUtilisation = f64(quotaUtil)
	c := sweep.Config{{Flag: "workers", Value: "4"}, {Flag: "burst", Value: burst}, {Flag: "cpus", Value: "1"}, {Flag: "work", Value: "5ms"},
		{Flag: "rate", Value: "46"}}
	return Row{Config: c, Report: r}
}

// readmeAB are the rows of docs/latency.md's first example.
func readmeAB() []Row {
	return []Row{
		abRow("0s", [8]float64{0.245, 1.13, 7.08, 5.24, 12.67, 21.87, 24.26, 24.34}, [4]float64{5.21, 5.27, 19.95, 23.41}, 34, 117, 0, 0.521, late("12.67")),
		abRow("100ms", [8]float64{0.243, 1.22, 5.49, 5.21, 6.01, 9.44, 19.38, 20.97}, [4]float64{5.19, 5.23, 8.86, 12.14}, 0, 106, 35, 0.571, late("11.47")),
	}
}

// instRow is one row of docs/latency.md's --instances per-request,shared
// example: started (= cold starts = peak instances), concurrency, peak RSS
// MiB, CPU ms, cold start, wait_instance, queue, service, mean, p50, p99
// (= max), throttled of periods, the two bills.
func instRow(policy string, started, concurrency int, m [10]float64, throttled, periods uint64, gbs, cpus float64, warnings ...string) Row {
	r := &report.Latency{
		Config: report.LatencyConfig{Arrivals: "once", Count: 10, WorkMs: 100, WaitMs: 2000,
			InstancesConfig: &report.InstancesConfig{Instances: policy, Concurrency: concurrency, InitMs: 70, InitMemoryBytes: 80_000_000,
				KeepAliveMs: 600_000, BillGranularityMs: 1}},
		Cgroup:  report.Cgroup{Mode: "created", Version: 1, Path: "/throttlebench/tb-13325-1604890-3a4bb016", EffectiveCPUs: 1},
		Offered: 10, Completed: 10, CPUMs: f64(m[1]),
		LatencyMs: report.LatencyMs{Mean: m[6], P50: m[7], P99: m[8], Max: m[9]},
		Warnings:  report.Of(report.KindUnknown, warnings...),
		InstancesResult: &report.InstancesResult{InstancesStarted: started, ColdStarts: started, PeakInstances: started,
			PeakRSSBytes: int64(m[0] * (1 << 20)), ColdStartMs: report.LatencyMs{Mean: m[2]},
			Bill: report.Bill{RequestGBs: gbs, InstanceCPUs: cpus, CPUShare: 1},
			PercentilesMs: report.PartsMs{WaitInstance: report.LatencyMs{Mean: m[3]}, Queue: report.LatencyMs{Mean: m[4]},
				Service: report.LatencyMs{Mean: m[5]}}},
	}
	r.Throttling.NrPeriods, r.Throttling.NrThrottled = u64(periods), u64(throttled)
	c := sweep.Config{{Flag: "cpus", Value: "1"}, {Flag: "work", Value: "100ms"}, {Flag: "instances", Value: policy}}
	return Row{Config: c, Report: r}
}

const (
	fewServed = "few requests: 10 served; a percentile is a request's own time (nearest rank), so p99 is the max below 100 requests and p90 below 10"
	beyond    = "instances beyond the machine: up to 10 instances at once, each allowed 1.00 CPUs (10.00 in all), on 2 CPUs: " +
		"they compete for the machine's CPUs as well as their quotas, as on an oversubscribed host"
)

// readmeInstances are the rows of docs/latency.md's --instances example.
func readmeInstances() []Row {
	return []Row{
		instRow("per-request", 10, 1, [10]float64{854.6, 2223.6, 627.1, 627.1, 10.8, 2458.3, 3096.3, 3082.8, 3143.7, 3143.7}, 0, 133,
			2.0521, 31.437, fewServed, beyond),
		instRow("shared", 1, 10, [10]float64{85.9, 1165.3, 128.8, 129.0, 4.5, 2960.2, 3093.8, 3105.8, 3139.3, 3139.3}, 10, 14,
			2.4844, 3.139, fewServed),
	}
}

// One configuration without lists: no keys, every metric its own.
func oneConfiguration() []Row {
	r := readmeAB()[0]
	r.Config = nil
	return []Row{r}
}

// The text at 80 columns (a pipe, a file; docs/latency.md's examples), at 200
// (a wide terminal), with --columns all and with a list; CSV and markdown
// are never cut, and a list chooses their columns too.
func TestTablesGolden(t *testing.T) {
	all := table.Columns{All: true}
	named := table.Columns{Names: []string{"p50_ms", "p99_ms", "throttled"}}
	for _, c := range []struct {
		file   string
		rows   []Row
		format string
		view   table.View
	}{
		{"burst-80.txt", readmeAB(), "text", table.View{Width: 80}},
		{"burst-200.txt", readmeAB(), "text", table.View{Width: 200}},
		{"burst-all.txt", readmeAB(), "text", table.View{Columns: all, Width: 80}},
		{"burst-named.txt", readmeAB(), "text", table.View{Columns: named, Width: 80}},
		{"burst-named.csv", readmeAB(), "csv", table.View{Columns: named, Width: 80}},
		{"burst.md", readmeAB(), "markdown", table.View{Width: 80}},
		{"one-80.txt", oneConfiguration(), "text", table.View{Width: 80}},
		{"instances-80.txt", readmeInstances(), "text", table.View{Width: 80}},
		{"instances-200.txt", readmeInstances(), "text", table.View{Width: 200}},
		{"instances-named.txt", readmeInstances(), "text", table.View{Columns: table.Columns{Names: []string{"wait_instance_ms", "service_ms"}}, Width: 80}},
	} {
		t.Run(c.file, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, Write(&b, c.rows, c.format, true, c.view))
			golden.Check(t, c.file, b.String())
			if c.format == "text" && !c.view.All {
				golden.Fits(t, b.String(), c.view.Width)
			}
		})
	}
}

// At 80 columns the A/B shows what tells its rows apart and explains them,
// and says the rest above the table.
func TestTextAt80(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, readmeAB(), "text", true, table.View{Width: 80}))
	out := b.String()
	assert.Contains(t, out, "same in every row: workers=4, cpus=1, work=5ms, rate=46, offered_rps=46.9,\n"+
		"  achieved_rps=46.9, completed=1173, dropped=0, offered_load=0.230; empty:\n  p999_ci95, wait_share\n", "constants above the table, with their values")
	assert.Contains(t, out, "left out to fit 80 columns: ")
	assert.Contains(t, out, "--columns all shows them\n")
	head := strings.Fields(strings.Split(out, "\n\n")[1])
	for _, c := range []string{"burst", "p50_ms", "p99_ms", "p99_ci95", "throttled", "note"} {
		assert.Contains(t, head, c, "the key that varies, the headlines and the note stay")
	}
	for _, c := range []string{"workers", "cpus", "offered_rps", "completed", "dropped"} {
		assert.NotContains(t, head, c, "the same in every row")
	}
}

// targetRow is one configuration of a --target --serve A/B over the
// burst: p50, p99 and their intervals, the requests and how many failed.
func targetRow(burst string, p50, p99 float64, ci [4]float64, requests, failed int, warnings ...string) Row {
	r := &report.Latency{
		Config: report.LatencyConfig{Rate: 40, Arrivals: runspec.ArrivalsOnOff, OnMs: 150, OffMs: 600, DurationS: 27, Seed: 1,
			TargetConfig: &report.TargetConfig{Target: "http://127.0.0.1:8080/", Method: "GET", Connections: 32, RequestTimeoutMs: 5000,
				Serve: []string{"python3", "docs/examples/cpu_server.py", "8080", "5"}, AcceptStatus: "2xx,3xx", MaxFailures: "1%"}},
		Cgroup:     report.Cgroup{Mode: "created", Version: 1, Path: "/throttlebench/tb-1", EffectiveCPUs: 0.5},
		OfferedRPS: 40, AchievedRPS: 40, Offered: requests, Completed: requests - failed,
		LatencyMs:     report.LatencyMs{Mean: p50 * 1.2, P50: p50, P90: p99 / 2, P99: p99, P999: p99 * 1.1, Max: p99 * 1.2},
		LatencyMsCI95: &report.LatencyCI95{P50: &[2]float64{ci[0], ci[1]}, P99: &[2]float64{ci[2], ci[3]}},
		Warnings:      report.Of(report.KindUnknown, warnings...),
		TargetResult:  &report.TargetResult{HTTP: report.HTTPCounts{Requests: requests, Responses: requests - failed, Status2xx: requests - failed, ConnectionErrors: failed, Failures: &failed}},
	}
	r.Throttling.NrPeriods, r.Throttling.NrThrottled = u64(270), u64(40)
	return Row{Config: sweep.Config{{Flag: "cpus", Value: "0.5"}, {Flag: "burst", Value: burst}}, Report: r}
}

// A --target's text: the rate, the URL and the server in its header, no
// built-in workload's field (dropped, offered_load, work, workers), the
// failed requests in a column, a warning both rows have said once.
func TestTargetTable(t *testing.T) {
	few := "few requests: p99.9 has no 95% interval (under 368 responses p99 has none, under 3688 p99.9): even the slowest response is not surely above it, so it is the max or next to it and says little more; raise --rate or --duration"
	rows := []Row{
		targetRow("0", 5.6, 48.2, [4]float64{5.5, 5.8, 41.3, 55.0}, 1080, 0, few),
		targetRow("50ms", 5.5, 9.1, [4]float64{5.4, 5.6, 8.2, 10.4}, 1080, 20, few, "failed run: 20 of 1080 requests failed (20 connection errors), more than --max-failures 1% allows (10)"),
	}
	var b bytes.Buffer
	require.NoError(t, Write(&b, rows, "text", true, table.View{Width: 80}))
	out := b.String()
	golden.Check(t, "target-80.txt", out)
	golden.Fits(t, out, 80)
	words := strings.Join(strings.Fields(out), " ")
	assert.Contains(t, words, "arrivals at 40 requests/s for 27s")
	assert.Contains(t, words, "GET http://127.0.0.1:8080/")
	assert.Contains(t, words, "server: python3 docs/examples/cpu_server.py 8080 5")
	assert.Equal(t, 1, strings.Count(out, "few requests"), "said once: every row has it")
	for _, builtin := range []string{"dropped", "offered_load", "work", "workers"} {
		assert.NotContains(t, out, builtin)
	}
	assert.Contains(t, strings.Fields(strings.Split(out, "\n\n")[1]), "failed")
}
