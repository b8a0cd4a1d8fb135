package latency

import (
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// instRep is a report on instances whose numbers have more digits than a
// table shows.
func instRep(policy string, started int, concurrency int, warnings ...string) *report.Latency {
	r := rep(0, 2100.123456, warnings...)
	r.Config.Arrivals, r.Config.Count, r.Config.Rate, r.Config.DurationS = "once", 10, 0, 0
	r.Config.WorkMs, r.Config.WaitMs = 100, 2000
	r.Config.InstancesConfig = &report.InstancesConfig{Instances: policy, Concurrency: concurrency, InitMs: 70,
		InitMemoryBytes: 80_000_000, KeepAliveMs: 600_000, BillGranularityMs: 1}
	r.Offered, r.Completed = 10, 10
	r.CPUMs = f64(1234.5678)
	r.InstancesResult = &report.InstancesResult{InstancesStarted: started, ColdStarts: started, PeakInstances: started,
		PeakRSSBytes: int64(started) * 90 << 20, ColdStartMs: report.LatencyMs{Mean: 150.55},
		Bill: report.Bill{RequestMs: 21010, RequestGBs: 1.8464, InstanceMs: 31700, InstanceCPUs: 31.7, CPUShare: 4},
		PercentilesMs: report.PartsMs{WaitInstance: report.LatencyMs{Mean: 150.55}, Queue: report.LatencyMs{Mean: 0.345},
			Service: report.LatencyMs{Mean: 2101.5}},
		Requests: []report.RequestRow{{ID: 0, Instance: 0, Cold: true}}}
	return r
}

func instRows() []Row {
	c := func(v string) sweep.Config { return sweep.Config{{Flag: "instances", Value: v}} }
	return []Row{
		{Config: c("per-request"), Report: instRep("per-request", 10, 1, fewRequests)},
		{Config: c("shared"), Report: instRep("shared", 1, 10, fewRequests)},
		{Config: c("pool:0"), Skipped: "cannot be"},
	}
}

// Rows on instances have a table of their own: a header of what they
// share, one row per mode, the bills last.
func TestWriteInstancesText(t *testing.T) {
	out := write(t, instRows(), "text", true)
	lines := strings.Split(out, "\n")
	assert.Equal(t, "instances: 10 requests at the same instant (--arrivals once); each request 100ms of CPU, then a wait of 2s", lines[0])
	assert.Contains(t, lines[1], "its cold start 70ms of CPU and 76.3 MiB touched; retired after 10m0s idle")
	assert.Contains(t, lines[1], "(cgroup v1; the first: /throttlebench/tb-1)")
	assert.Contains(t, lines[3], "request_gb_s = Σ service rounded up to 1ms × its instance's peak RSS")
	assert.True(t, strings.HasSuffix(lines[3], "instance_cpu_s = Σ instance lifetimes × the CPU share, 4"), "the share billed, not the effective CPUs: %q", lines[3])
	assert.Equal(t, "every configuration: "+fewRequests, lines[4], "a warning every row has, said once")
	head := strings.Fields(lines[6])
	assert.Equal(t, []string{"instances", "concurrency", "requests", "failed", "instances_started", "cold_starts", "peak_instances",
		"peak_rss_mib", "cpu_ms", "cold_start_ms", "wait_instance_ms", "queue_ms", "service_ms", "mean_ms", "p50_ms", "p99_ms",
		"max_ms", "throttled", "request_gb_s", "instance_cpu_s", "note"}, head)
	assert.Equal(t, []string{"per-request", "1", "10", "0", "10", "10", "10", "900.0", "1234.6", "150.6", "150.6", "0.3", "2101.5",
		"3.1", "2.7", "2100.1", "100.0", "7/100", "1.8464", "31.700"}, strings.Fields(lines[7]), "no note of its own")
	assert.Equal(t, []string{"shared", "10", "10", "0", "1", "1", "1", "90.0"}, strings.Fields(lines[8])[:8])
	assert.Equal(t, []string{"pool:0", "skipped¹"}, strings.Fields(lines[9]))
	assert.NotContains(t, out, "¹ "+fewRequests)
	assert.Contains(t, out, "¹ skipped: cannot be\n")
}

// A configuration where nothing was served shows blank response times
// and cold start, not zeros.
func TestWriteInstancesNothingServed(t *testing.T) {
	r := instRep("shared", 1, 10)
	r.Completed = 0
	r.InstancesResult.Failed, r.InstancesResult.ColdStarts, r.InstancesResult.FailedStarts = 10, 0, 1
	r.InstancesResult.ColdStartMs, r.InstancesResult.PercentilesMs, r.LatencyMs = report.LatencyMs{}, report.PartsMs{}, report.LatencyMs{}
	recs, err := csv.NewReader(strings.NewReader(write(t, []Row{{Config: sweep.Config{{Flag: "instances", Value: "shared"}}, Report: r}}, "csv", true))).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 2)
	for _, name := range []string{"cold_start_ms", "wait_instance_ms", "queue_ms", "service_ms", "mean_ms", "p50_ms", "p99_ms", "max_ms"} {
		assert.Empty(t, recs[1][slices.Index(recs[0], name)], name)
	}
	assert.Equal(t, "10", recs[1][slices.Index(recs[0], "failed")])
}

func TestWriteInstancesCSV(t *testing.T) {
	recs, err := csv.NewReader(strings.NewReader(write(t, instRows(), "csv", true))).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 4)
	head := recs[0]
	col := func(rec []string, name string) string {
		i := slices.Index(head, name)
		require.GreaterOrEqual(t, i, 0, name)
		return rec[i]
	}
	assert.Equal(t, "1.8464", col(recs[1], "request_gb_s"))
	assert.Equal(t, "900", col(recs[1], "peak_rss_mib"))
	assert.Equal(t, "0.345", col(recs[1], "queue_ms"))
	assert.Equal(t, fewRequests, col(recs[2], "note"))
}

// The JSON keys the issue names, where it names them.
func TestWriteInstancesJSON(t *testing.T) {
	var arr []map[string]any
	require.NoError(t, json.Unmarshal([]byte(write(t, instRows(), "json", true)), &arr))
	require.Len(t, arr, 2)
	r := arr[0]
	cfg := r["config"].(map[string]any)
	for _, k := range []string{"instances", "concurrency", "init_ms", "init_memory_bytes", "keep_alive_ms"} {
		assert.Contains(t, cfg, k)
	}
	for _, k := range []string{"instances_started", "cold_starts", "peak_instances", "peak_rss_bytes", "cpu_ms", "bill", "requests"} {
		assert.Contains(t, r, k)
	}
	assert.Equal(t, map[string]any{"request_ms": 21010.0, "request_gb_s": 1.8464, "instance_ms": 31700.0, "instance_cpu_s": 31.7, "cpu_share": 4.0}, r["bill"])
	req := r["requests"].([]any)[0].(map[string]any)
	for _, k := range []string{"instance", "cold", "wait_instance_ms", "queue_ms", "service_ms", "response_ms"} {
		assert.Contains(t, req, k)
	}

	// Without instances none of their keys.
	var plain map[string]any
	require.NoError(t, json.Unmarshal([]byte(write(t, []Row{{Report: rep(100, 1)}}, "json", false)), &plain))
	for _, k := range []string{"instances_started", "bill", "requests", "per_instance"} {
		assert.NotContains(t, plain, k)
	}
	assert.NotContains(t, plain["config"], "instances")
	assert.NotContains(t, plain["config"], "count")
}
