package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/golden"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

// everything is a comparison with every kind of row: a regression, an
// improvement, no change, too few iterations, pooled results, a side
// without counters, and configurations found on one side only.
func everything() Result {
	withThrottling := func(r report.Report, throttled, periods uint64, ratio float64) report.Report {
		r.Throttling.NrPeriods, r.Throttling.NrThrottled = u64(periods), u64(throttled)
		r.Model.Ratio = ratio
		return r
	}
	noCounters := rep(-1, series(10, 18.2)...)
	noCounters.Throttling = report.Throttling{}
	old := []report.Report{
		withThrottling(rep(50000, series(10, 36.4)...), 3, 10, 1.01),
		withThrottling(rep(25000, series(10, 80)...), 9, 10, 1.1),
		noCounters,
		rep(10000, 180, 185, 190),
		rep(5000, series(5, 400)...),
		rep(5000, series(5, 404)...),
		rep(2000, 900),
	}
	new := []report.Report{
		withThrottling(rep(50000, series(10, 72.8)...), 8, 10, 1.02),
		withThrottling(rep(25000, series(10, 40)...), 2, 10, 0.98),
		rep(-1, series(10, 18.3)...),
		rep(10000, 360, 365, 370),
		rep(5000, series(10, 402)...),
		rep(1000, 1800),
		rep(1000, 1810),
	}
	res := Compare(old, new, defaults())
	res.Old.Name, res.New.Name = "base.jsonl", "change.jsonl"
	return res
}

// The text at 80 columns (a pipe, a file) and at 200 (a wide terminal),
// and with --columns all and a list; markdown and JSON are never cut.
func TestCompareRenderGolden(t *testing.T) {
	res := everything()
	for _, c := range []struct {
		file, format string
		view         table.View
	}{
		{"everything.txt", "text", table.View{Width: 80}},
		{"everything-200.txt", "text", table.View{Width: 200}},
		{"everything-all.txt", "text", table.View{Columns: table.Columns{All: true}, Width: 80}},
		{"everything-named.txt", "text", table.View{Columns: table.Columns{Names: []string{"vs_old", "throttled"}}, Width: 80}},
		{"everything.md", "markdown", table.View{Width: 80}},
		{"everything-named.md", "markdown", table.View{Columns: table.Columns{Names: []string{"new", "model_ratio"}}, Width: 80}},
		{"everything.json", "json", table.View{Width: 80}},
	} {
		t.Run(c.file, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, Write(&b, res, c.format, c.view))
			golden.Check(t, c.file, b.String())
		})
	}
}

func TestCompareRenderJSONIsValidAndNullsWhatIsMissing(t *testing.T) {
	res := Compare([]report.Report{rep(-1)}, []report.Report{rep(-1, 1, 2)}, defaults())
	var b bytes.Buffer
	require.NoError(t, Write(&b, res, "json", table.View{}))
	var got struct {
		Rows []struct {
			ChangePct *float64 `json:"change_pct"`
			P         *float64 `json:"p"`
			Old       struct {
				MedianMs *float64 `json:"median_ms"`
			} `json:"old"`
			Config map[string]any `json:"config"`
		} `json:"rows"`
		Verdicts map[string]int `json:"verdicts"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &got), b.String())
	require.Len(t, got.Rows, 1)
	assert.Nil(t, got.Rows[0].P, "NaN is null")
	assert.Nil(t, got.Rows[0].ChangePct)
	assert.Nil(t, got.Rows[0].Old.MedianMs)
	assert.Equal(t, -1.0, got.Rows[0].Config["quota_us"], "values as in the result file")
	assert.Equal(t, map[string]int{"regression": 0, "improvement": 0, "none": 1}, got.Verdicts)
}

// One configuration is named once above the table, where a column of its
// whole key would make the table wider than any terminal.
func TestCompareRenderSingleConfigurationShowsItsKey(t *testing.T) {
	res := Compare([]report.Report{rep(50000, series(10, 10)...)}, []report.Report{rep(50000, series(10, 20)...)}, defaults())
	var b bytes.Buffer
	require.NoError(t, Write(&b, res, "text", table.View{Width: 80}))
	assert.Contains(t, b.String(), "\nconfiguration: workload=bcrypt cost=4 batch=20 workers=1 gomaxprocs=1\n  period=100ms quota=50ms burst=0\n")
	assert.Contains(t, b.String(), "\nold time/iter   new time/iter   vs old                     throttled\n10.00ms ± 0.8%  20.00ms ± 0.8%  +100.0% (p<0.001 n=10+10)  0% → 0%\n")
	assert.NotContains(t, b.String(), "common:")
}

func TestCompareRenderUnknownFormat(t *testing.T) {
	assert.Error(t, Write(&bytes.Buffer{}, Result{}, "yaml", table.View{}))
}

// The duration cells themselves are table.Ms's (internal/table tests it).
func TestCompareSummaryText(t *testing.T) {
	assert.True(t, strings.HasPrefix(summaryText(Summary{N: 3, Center: 10, Lo: 9.95, Hi: 10.02}), "10.00ms ± 0.5%"))
}

// Where --trace split the iterations by cause, the comparison says what
// each side's slowest iterations spent their time on: pooled over a
// side's results by how many slow iterations each stands for, a note
// beside the change, and p99_share in the JSON.
func TestCompareSaysWhatTheSlowIterationsSpentTheirTimeOn(t *testing.T) {
	traced := func(held float64, n int, durations ...float64) report.Report {
		r := rep(50000, durations...)
		r.Breakdown = &report.Breakdown{Threads: "workers", Count: 10, P99Count: n,
			P99Share: report.Shares{OnCPU: 1 - held, Held: held}}
		return r
	}
	old := []report.Report{traced(0.6, 1, series(10, 40)...), traced(0.9, 2, series(10, 40)...)}
	res := Compare(old, []report.Report{traced(0, 1, series(10, 20)...)}, Options{})
	require.Len(t, res.Rows, 1)
	require.NotNil(t, res.Rows[0].Old.P99Share)
	assert.InDelta(t, 0.8, res.Rows[0].Old.P99Share.Held, 1e-9, "(0.6·1 + 0.9·2) / 3")
	var b bytes.Buffer
	require.NoError(t, Write(&b, res, "text", table.View{Width: 200}))
	assert.Contains(t, b.String(), "by cause, the p99 iterations: old 80% held by the quota, 20% on CPU; new 100% on CPU")
	b.Reset()
	require.NoError(t, Write(&b, res, "json", table.View{}))
	assert.Contains(t, b.String(), `"p99_share": {`)

	res = Compare([]report.Report{rep(50000, series(10, 40)...)}, []report.Report{rep(50000, series(10, 40)...)}, Options{})
	b.Reset()
	require.NoError(t, Write(&b, res, "text", table.View{Width: 200}))
	assert.NotContains(t, b.String(), "by cause", "neither side traced")
}
