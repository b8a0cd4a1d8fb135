package latency

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
)

func f64(v float64) *float64 { return &v }
func u64(v uint64) *uint64   { return &v }

const (
	fewRequests = "few requests: 800 completed; p99.9 needs at least 1000 (p99 at least 100) to be more than the max; raise --rate or --duration"
	dropped     = "dropped requests: 5 of 805 (0.6%) found the queue (--queue 100) full and were not served; the latencies cover completed requests only"
)

// rep is a report whose numbers have more digits than a table shows.
func rep(rate float64, p99 float64, warnings ...string) *report.Latency {
	r := &report.Latency{
		Config:     report.LatencyConfig{Rate: rate, Arrivals: runspec.ArrivalsPoisson, WorkMs: 5, Workers: 2, Queue: 100, DurationS: 10, Seed: 1},
		Cgroup:     report.Cgroup{Mode: "created", Version: 1, Path: "/throttlebench/tb-1", EffectiveCPUs: 1},
		OfferedRPS: rate + 0.123456789, AchievedRPS: rate - 0.987654321, Offered: 805, Completed: 800, Dropped: 5,
		CPUUtilisation: f64(0.123456789), PeakCPUs100ms: f64(1.23456789),
		LatencyMs:     report.LatencyMs{Mean: 3.14159265, Min: 1, P50: 2.71828182, P90: 5.5, P99: p99, P999: 42.4242424, Max: 99.9999},
		LatencyMsCI95: &report.LatencyCI95{P50: &[2]float64{2.5, 2.9}, P99: &[2]float64{10.5, 15.25}}, // p99.9: too few
		Model:         report.LoadModel{OfferedCPUs: 0.5, OfferedLoad: 0.512345678},
		Warnings:      report.Of(report.KindFewRequests, warnings...),
		Calibration:   report.Calibration{Loop: "xorshift", IterationsPerMs: 1234.4, Rounds: 9, Clock: "thread CPU clock"},
	}
	r.Throttling.NrPeriods, r.Throttling.NrThrottled, r.Throttling.NrBursts = u64(100), u64(7), u64(3)
	src := report.SourceProcess
	r.Usage = report.Usage{CPUMs: f64(1234.56789), QuotaUtilisation: f64(0.246913578), Source: &src}
	return r
}

func cfg(burst, rate string) sweep.Config {
	return sweep.Config{{Flag: "burst", Value: burst}, {Flag: "rate", Value: rate}}
}

// An A/B over the burst at two rates; one configuration was skipped.
func abRows() []Row {
	return []Row{
		{Config: cfg("0", "100"), Report: rep(100, 12.3456789, fewRequests, dropped)},
		{Config: cfg("0", "200"), Report: rep(200, 45.6789012, fewRequests)},
		{Config: cfg("100ms", "100"), Report: rep(100, 6.54321)},
		{Config: cfg("100ms", "200"), Skipped: `invalid --burst "100ms": must not exceed the quota 50ms`},
	}
}

func write(t *testing.T, rows []Row, format string, list bool) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, Write(&b, rows, format, list, table.View{}))
	return b.String()
}

// A single configuration given without lists is one object, as run's
// result is; with lists, an array, whatever its length, of the
// configurations that ran.
func TestWriteJSON(t *testing.T) {
	one := []Row{{Report: rep(100, 12.5, fewRequests)}}
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(write(t, one, "json", false)), &obj), "one object")
	assert.Equal(t, 100.0, obj["config"].(map[string]any)["rate"])
	assert.Equal(t, 12.5, obj["latency_ms"].(map[string]any)["p99"])
	assert.Equal(t, []any{map[string]any{"kind": report.KindFewRequests, "text": fewRequests}}, obj["warnings"], "a warning is its kind and its text")

	var arr []map[string]any
	require.NoError(t, json.Unmarshal([]byte(write(t, one, "json", true)), &arr), "an array for a list of one")
	require.Len(t, arr, 1)

	arr = nil
	require.NoError(t, json.Unmarshal([]byte(write(t, abRows(), "json", true)), &arr))
	require.Len(t, arr, 3, "the skipped configuration has no report")
	var p99s []float64
	for _, r := range arr {
		p99s = append(p99s, r["latency_ms"].(map[string]any)["p99"].(float64))
	}
	assert.Equal(t, []float64{12.3456789, 45.6789012, 6.54321}, p99s, "in order, at full precision")
}

// CSV is for programs: a header and one record per configuration, skipped
// ones included, numbers at full precision, warnings whole.
func TestWriteCSV(t *testing.T) {
	rows := abRows()
	recs, err := csv.NewReader(strings.NewReader(write(t, rows, "csv", true))).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, len(rows)+1)
	head := recs[0]
	assert.Equal(t, []string{"burst", "rate", "offered_rps", "achieved_rps", "completed", "dropped", "cpu_util", "peak_cpus_100ms",
		"mean_ms", "p50_ms", "p50_ci95", "p90_ms", "p99_ms", "p99_ci95", "p999_ms", "p999_ci95", "max_ms", "throttled", "quota_util", "bursts", "offered_load", "wait_share", "note"}, head)
	col := func(rec []string, name string) string {
		i := slices.Index(head, name)
		require.GreaterOrEqual(t, i, 0, name)
		return rec[i]
	}
	for i, r := range recs[1:] {
		require.Len(t, r, len(head), "record %d", i)
	}
	first := recs[1]
	assert.Equal(t, "0", col(first, "burst"))
	assert.Equal(t, "100", col(first, "rate"))
	assert.Equal(t, "100.123456789", col(first, "offered_rps"))
	assert.Equal(t, "99.012345679", col(first, "achieved_rps"))
	assert.Equal(t, "800", col(first, "completed"))
	assert.Equal(t, "5", col(first, "dropped"))
	assert.Equal(t, "0.123456789", col(first, "cpu_util"))
	assert.Equal(t, "1.23456789", col(first, "peak_cpus_100ms"))
	assert.Equal(t, "3.14159265", col(first, "mean_ms"))
	assert.Equal(t, "2.71828182", col(first, "p50_ms"))
	assert.Equal(t, "12.3456789", col(first, "p99_ms"))
	assert.Equal(t, "42.4242424", col(first, "p999_ms"))
	assert.Equal(t, "2.5–2.9", col(first, "p50_ci95"), "low–high")
	assert.Equal(t, "10.5–15.25", col(first, "p99_ci95"))
	assert.Equal(t, "", col(first, "p999_ci95"), "no interval: empty")
	assert.Equal(t, "99.9999", col(first, "max_ms"))
	assert.Equal(t, "7/100", col(first, "throttled"))
	assert.Equal(t, "0.246913578", col(first, "quota_util"))
	assert.Equal(t, "3", col(first, "bursts"))
	assert.Equal(t, "0.512345678", col(first, "offered_load"))
	assert.Equal(t, fewRequests+"; "+dropped, col(first, "note"), "warnings whole, no footnote marks")
	assert.Equal(t, "", col(recs[3], "note"))

	skipped := recs[4]
	assert.Equal(t, []string{"100ms", "200"}, skipped[:2])
	for _, c := range skipped[2 : len(skipped)-1] {
		assert.Empty(t, c, "no numbers for a configuration that did not run")
	}
	assert.Equal(t, `skipped: invalid --burst "100ms": must not exceed the quota 50ms`, col(skipped, "note"))
}

// Unknown numbers are empty cells, not 0.
func TestWriteCSVUnknowns(t *testing.T) {
	r := rep(100, 10)
	r.CPUUtilisation, r.PeakCPUs100ms = nil, nil
	r.Throttling.NrPeriods, r.Throttling.NrBursts = nil, nil
	r.Usage.QuotaUtilisation = nil
	recs, err := csv.NewReader(strings.NewReader(write(t, []Row{{Report: r}}, "csv", false))).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 2)
	head, rec := recs[0], recs[1]
	assert.Equal(t, "offered_rps", head[0], "no swept columns for a single configuration")
	for _, name := range []string{"cpu_util", "peak_cpus_100ms", "throttled", "quota_util", "bursts"} {
		assert.Empty(t, rec[slices.Index(head, name)], name)
	}
}

// For people: the columns, numbers rounded, each warning its headline with
// a footnote mark, the footnotes below (a warning rows share, once).
func TestWriteMarkdown(t *testing.T) {
	out := write(t, abRows(), "markdown", true)
	lines := strings.Split(out, "\n")
	assert.Equal(t, "| burst | rate | offered_rps | achieved_rps | completed | dropped | cpu_util | peak_cpus_100ms | mean_ms | p50_ms | p50_ci95 | p90_ms | p99_ms | p99_ci95 | p999_ms | p999_ci95 | max_ms | throttled | quota_util | bursts | offered_load | wait_share | note |", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "|---:|"), lines[1])
	assert.Contains(t, lines[2], "| 0 | 100 | 100.1 | 99.0 | 800 | 5 | 0.123 | 1.23 | 3.14 | 2.72 | 2.50–2.90 | 5.50 | 12.35 | 10.50–15.25 | 42.42 |  | 100.00 | 7/100 | 0.247 | 3 | 0.512 |  | few requests¹; dropped requests² |")
	assert.Contains(t, lines[3], "| 45.68 |")
	assert.Contains(t, lines[3], "few requests¹ |", "the shared warning keeps its number")
	assert.Contains(t, lines[5], `| 100ms | 200 |`)
	assert.Contains(t, lines[5], `| skipped³ |`)
	assert.Contains(t, out, "\n- ³ skipped: invalid --burst \"100ms\": must not exceed the quota 50ms\n", "why, below the table")
	assert.Contains(t, out, "\n- ¹ "+fewRequests+"\n")
	assert.Contains(t, out, "\n- ² "+dropped+"\n")
	assert.Equal(t, 1, strings.Count(out, fewRequests), "each footnote once")
	assert.NotContains(t, out, "open loop:", "no text header in markdown")
}

// The text table has a header saying what every row shares, the columns,
// and the footnotes.
func TestWriteText(t *testing.T) {
	out := write(t, abRows(), "text", true)
	assert.True(t, strings.HasPrefix(out, "open loop: poisson arrivals for 10s (seed 1), 2 workers, queue 100, wait 0s per request\n"), out)
	assert.Contains(t, out, "work: a loop run until the thread's CPU clock has advanced by --work; one iteration is a xorshift, 1234 per ms (median of 9 rounds timed by thread CPU clock)\n")
	assert.Contains(t, out, "cgroup v1, a slice created for each configuration (the first: /throttlebench/tb-1); response time = completion − scheduled arrival\n")
	for _, c := range []string{"burst", "rate", "offered_rps", "achieved_rps", "cpu_util", "peak_cpus_100ms", "p50_ms", "p99_ms", "p999_ms", "throttled", "quota_util", "offered_load", "note"} {
		assert.Contains(t, out, c)
	}
	assert.Contains(t, out, "few requests¹; dropped requests²")
	assert.Contains(t, out, "\n¹ "+fewRequests+"\n")
	assert.Contains(t, out, "\n² "+dropped+"\n")
	assert.Contains(t, out, `skipped: invalid --burst "100ms": must not exceed the quota 50ms`)
	assert.Contains(t, out, "12.35")
	assert.NotContains(t, out, "12.3456789", "rounded for people")

	// Every line of the table lines up.
	var table []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  ") {
			table = append(table, l)
		}
	}
	require.Len(t, table, 5, "a header line and four rows: %q", table)
}

// The header names the onoff cycle, and current mode's cgroup.
func TestWriteTextHeader(t *testing.T) {
	r := rep(100, 10)
	r.Config.Arrivals, r.Config.OnMs, r.Config.OffMs = runspec.ArrivalsOnOff, 50, 450
	r.Config.WaitMs = 2
	r.Cgroup.Mode, r.Cgroup.Version, r.Cgroup.Path = "current", 2, "/user.slice/x.scope"
	out := write(t, []Row{{Skipped: "first"}, {Report: r}}, "text", true)
	assert.True(t, strings.HasPrefix(out, "open loop: onoff (50.00 ms on, 450.0 ms off) arrivals for 10s (seed 1), 2 workers, queue 100, wait 2ms per request\n"), out)
	assert.Contains(t, out, "cgroup v2, the current one: /user.slice/x.scope;")
	assert.Contains(t, out, "skipped: first")
}

// Every format copes with a list where nothing ran: the formats CI tools
// read hold no benchmark (the command said on stderr what it skipped).
func TestWriteOnlySkipped(t *testing.T) {
	rows := []Row{{Config: cfg("100ms", "200"), Skipped: "why"}}
	for _, f := range Formats {
		out := write(t, rows, f, true)
		switch f {
		case render.Gobench:
			assert.Empty(t, out)
			continue
		case render.GitHubActionBenchmark:
			assert.JSONEq(t, "[]", out)
			continue
		case render.BMF:
			assert.JSONEq(t, "{}", out)
			continue
		}
		if f == "json" {
			var reports []any // null or []: no report
			require.NoError(t, json.Unmarshal([]byte(out), &reports), out)
			assert.Empty(t, reports)
			continue
		}
		assert.Contains(t, out, "skipped: why", f)
	}
}

// Traced configurations get a line under the text table each: the events
// against the counter, and the p99 request's throttled share.
func TestWriteTraced(t *testing.T) {
	rows := abRows()
	ratio := 1.02
	rows[0].Report.ThrottleEvents = &report.ThrottleEvents{Source: "ebpf", Count: 12, TotalMs: 306,
		CPUs:      []report.CPUEvents{{CPU: 0, Count: 7, TotalMs: 180}, {CPU: 1, Count: 5, TotalMs: 126}},
		Agreement: &report.ThrottleAgreement{TracedMs: 306, CounterMs: 300, Ratio: &ratio}}
	rows[0].Report.RequestThrottles = &report.RequestThrottles{ThrottledRequests: 9,
		LatencyMsUnthrottled: &report.LatencyMs{P99: 3.9},
		P99Request:           &report.P99Request{ResponseMs: 55.3, ThrottledMs: 48.1}}
	out := write(t, rows, "text", true)
	assert.Contains(t, out, "traced burst=0 rate=100: 12 throttle events on 2 CPUs, 306.0 ms in total (cpu.stat: 300.0 ms); "+
		"9 of 800 requests met one; p99 request 55.3 ms, of which 48.1 ms throttled; requests that met no throttle: p99 3.9 ms\n")
	assert.Equal(t, 1, strings.Count(out, "traced "), "the untraced rows get none")
	assert.NotContains(t, write(t, rows, "csv", true), "traced")
}

// No response: every response time "–" for people, never 0.00, and empty
// in CSV; the intervals empty.
func TestNoResponsesNoFigures(t *testing.T) {
	r := rep(100, 0)
	r.Completed, r.LatencyMs, r.LatencyMsCI95 = 0, report.LatencyMs{None: true}, nil
	rows := []Row{{Config: cfg("0", "100"), Report: r}, {Config: cfg("0", "200"), Report: rep(200, 12)}}
	md := strings.Split(write(t, rows, "markdown", true), "\n")
	assert.Contains(t, md[2], "| 0 | 5 | 0.123 | 1.23 | – | – |  | – | – |  | – |  | – | 7/100 |")
	assert.NotContains(t, md[2], "0.00")
	text := strings.Split(write(t, rows, "text", true), "\n")
	require.Greater(t, len(text), 5)
	assert.Equal(t, []string{"0", "100", "100.1", "99.0", "0", "5", "0.123", "1.23", "–", "–", "–", "–", "–", "–", "7/100"}, strings.Fields(text[5])[:15],
		"no 0.00 for a figure that is not there")
	recs, err := csv.NewReader(strings.NewReader(write(t, rows, "csv", true))).ReadAll()
	require.NoError(t, err)
	for _, name := range []string{"mean_ms", "p50_ms", "p50_ci95", "p99_ms", "p999_ms", "max_ms"} {
		assert.Empty(t, recs[1][slices.Index(recs[0], name)], name)
	}
}

// wait_share is the contention block's share: a percentage for people,
// the fraction in full for CSV, empty where it was not read.
func TestWaitShareCell(t *testing.T) {
	c := &report.Contention{WaitShare: 0.0312}
	assert.Equal(t, "3%", waitShare(c, true))
	assert.Equal(t, "0.0312", waitShare(c, false))
	assert.Equal(t, "", waitShare(nil, true))
}
