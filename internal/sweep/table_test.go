package sweep

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

func fakeReport(cpus, meanMs float64, throttled *float64) *report.Report {
	r := &report.Report{}
	r.Config = report.Config{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 10, Iterations: 3, Workers: 1, GOMAXPROCS: 1}
	r.Cgroup.EffectiveCPUs = cpus
	r.Stats = report.Stats{N: 3, MeanMs: meanMs, P50Ms: meanMs, P99Ms: meanMs * 1.1, CoV: 0.05}
	r.DurationsMs = []float64{meanMs * 0.9, meanMs, meanMs * 1.1}
	r.Throttling.ThrottledFraction = throttled
	r.Model = report.Model{CPUMsPerIteration: 10, Ratio: 1.02}
	r.Spread = report.Spread{SlowestToFastest: 0.75, CoV: 0.2}
	r.Workers = []report.Worker{{ID: 0, Ops: 30}}
	return r
}

func frac(v float64) *float64 { return &v }

func sampleRows() []Row {
	return []Row{
		{Config: Config{{"workers", "1"}, {"cpus", "0.5"}}, Report: fakeReport(0.5, 20, frac(1))},
		{Config: Config{{"workers", "1"}, {"cpus", "1"}}, Report: fakeReport(1, 10, nil)},
		{Config: Config{{"workers", "1"}, {"cpus", "2"}}, Skipped: "invalid --burst \"30ms\": must not exceed the quota 20ms"},
	}
}

func TestCSVParses(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteCSV(&buf, sampleRows(), table.Columns{}))
	recs, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 4)
	assert.Equal(t, []string{"workers", "cpus", "mean_ms", "p50_ms", "p99_ms", "cov", "throttled_fraction", "model_ratio", "cost_cpu_s", "spread", "note"}, recs[0])
	assert.Equal(t, "20", recs[1][2])
	assert.Equal(t, "0.01", recs[1][8], "cost = 0.5 CPUs × 20 ms")
	assert.Equal(t, "", recs[2][6], "throttled fraction not reported: empty, not 0")
	assert.Equal(t, "0.75", recs[1][9], "the workers' spread, full precision")
	assert.Equal(t, "", recs[3][9], "skipped: no spread")
	assert.Contains(t, recs[3][10], "skipped: invalid --burst")
}

func TestMarkdownTable(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteMarkdown(&buf, sampleRows(), table.Columns{}))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 7, "header, alignment, 3 rows, blank, the skipped row's footnote")
	assert.Equal(t, "- ¹ skipped: invalid --burst \"30ms\": must not exceed the quota 20ms", lines[6])
	lines = lines[:5]
	assert.Equal(t, "| workers | cpus | mean_ms | p50_ms | p99_ms | cov | throttled_fraction | model_ratio | cost_cpu_s | spread | note |", lines[0])
	for _, l := range lines {
		assert.Equal(t, 12, strings.Count(l, "|")-strings.Count(l, `\|`), "every line has 11 cells: %s", l)
	}
	assert.Contains(t, lines[2], "| 20.0 |")
	assert.Contains(t, lines[2], "| 0.75 |", "spread, two decimals")
}

// A result without the workers' operations (written before they were
// counted, read back by sweep --from) has no spread to show: "-" in text and
// markdown, empty in CSV, never 0.
func TestSpreadOfAnOlderResult(t *testing.T) {
	old := fakeReport(0.5, 20, nil)
	old.Spread, old.Workers = report.Spread{}, []report.Worker{{ID: 0}}
	rows := []Row{{Config: Config{{"cpus", "0.5"}}, Report: old}}
	var buf bytes.Buffer
	require.NoError(t, WriteCSV(&buf, rows, table.Columns{}))
	recs, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, "", recs[1][8], "spread")
	buf.Reset()
	require.NoError(t, WriteMarkdown(&buf, rows, table.Columns{}))
	assert.Contains(t, buf.String(), "| - |")
	assert.NotContains(t, buf.String(), "0.00")
	buf.Reset()
	require.NoError(t, WriteText(&buf, rows, table.View{}))
	assert.NotContains(t, buf.String(), "0.00")
}

func TestTextTableAligns(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteText(&buf, sampleRows(), table.View{}))
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	require.Len(t, lines, 6, "header, 3 rows, blank, the skipped row's footnote")
	// Right-aligned: the mean column ends at the same position on every line.
	end := strings.Index(lines[0], "mean_ms") + len("mean_ms")
	assert.Equal(t, "20.0", strings.TrimSpace(lines[1][end-7:end]))
	// The note is left-aligned (table.Configs): a row without warnings ends
	// at its last metric, the skipped row's reason starts where notes do.
	assert.True(t, strings.HasSuffix(lines[2], "  0.75"), "no padding after the spread: %q", lines[2])
	assert.Equal(t, strings.Index(lines[0], "note"), strings.Index(lines[3], "skipped¹"))
}

func TestEstimator(t *testing.T) {
	e := NewEstimator()
	s := Shape{Cost: 4, Batch: 50, Iterations: 4, Warmup: 1, Workers: 2, GOMAXPROCS: 2, CPUs: 0.5, NumCPU: 2}
	// 50 × 2 × 5 ms of work at 0.5 CPUs.
	assert.Equal(t, time.Second, e.Estimate(s))
	s.CPUs = 0 // unlimited: both workers run in parallel on 2 CPUs
	assert.Equal(t, 250*time.Millisecond, e.Estimate(s))
	s.Cost = 6
	assert.Equal(t, time.Second, e.Estimate(s), "two cost steps are 4× the work")

	// --min-time: the measured iterations last at least that long.
	s.MinTime = 3 * time.Second
	assert.Equal(t, 3200*time.Millisecond, e.Estimate(s), "one warm-up iteration of 200 ms, then 3 s")
	s.MinTime = 500 * time.Millisecond
	assert.Equal(t, time.Second, e.Estimate(s), "the iterations take longer than --min-time")
	s.MinTime = 0

	r := fakeReport(1, 10, nil)
	r.Config.Batch, r.Config.Workers, r.Config.Params = 10, 1, report.Params{}.With("cost", 4)
	r.Model.CPUMsPerIteration = 20 // 2 ms per hash measured
	e.Learn(r)
	s.Cost = 4
	assert.Equal(t, 500*time.Millisecond, e.Estimate(s))
}

// Warnings are not hidden, and do not wreck the table: the note column
// shows their headlines with footnote numbers, their full texts follow
// the table once each; CSV, for machines, has them whole in the cell.
func TestWarningsAreFootnotes(t *testing.T) {
	few := "few periods: the measured iterations span 300 ms, 3 CFS periods of 100ms; raise --iterations or use --min-time 1s"
	short := "short iterations: an iteration needs 20.00 ms of CPU, less than the 50ms quota per 100ms period; use --batch 100 or more"
	rows := sampleRows()
	rows[0].Report.Warnings = []report.Warning{{Kind: report.KindShortIterations, Text: short}, {Kind: report.KindFewPeriods, Text: few}}
	rows[1].Report.Warnings = []report.Warning{{Kind: report.KindFewPeriods, Text: few}}

	var buf bytes.Buffer
	require.NoError(t, WriteText(&buf, rows, table.View{}))
	out := buf.String()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	require.Len(t, lines, 8, out) // header, 3 rows, blank, 3 footnotes
	assert.True(t, strings.HasSuffix(strings.TrimSpace(lines[1]), "short iterations¹; few periods²"), lines[1])
	assert.True(t, strings.HasSuffix(strings.TrimSpace(lines[2]), "few periods²"), "the same warning, the same footnote: %s", lines[2])
	assert.Equal(t, "¹ "+short, lines[5])
	assert.Equal(t, "² "+few, lines[6])
	// Still aligned: the mean column ends at the same place on every row.
	end := strings.Index(lines[0], "mean_ms") + len("mean_ms")
	assert.Equal(t, "20.0", strings.TrimSpace(lines[1][end-7:end]))

	buf.Reset()
	require.NoError(t, WriteMarkdown(&buf, rows, table.Columns{}))
	out = buf.String()
	assert.Contains(t, out, "| short iterations¹; few periods² |")
	assert.Contains(t, out, "\n- ¹ "+short+"\n- ² "+few+"\n")

	buf.Reset()
	require.NoError(t, WriteCSV(&buf, rows, table.Columns{}))
	recs, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, short+"; "+few, recs[1][len(recs[1])-1])
}

// A list of commands: no spread column in a person's table (one process
// is no workers to keep pace, always 1.00), and no warning about
// comparing the results later; CSV keeps both, for machines (issue 33).
func TestCommandRowsLeaveOutWhatMeansNothing(t *testing.T) {
	few := "few iterations: compare can never find a change with 3+3 iterations; raise --iterations to 4 or more"
	rows := sampleRows()[:2]
	for _, r := range rows {
		r.Report.Config.Workload = "command"
		r.Report.Warnings = []report.Warning{{Kind: report.KindFewIterations, Text: few}}
	}
	var buf bytes.Buffer
	require.NoError(t, WriteText(&buf, rows, table.View{}))
	assert.NotContains(t, buf.String(), "spread")
	assert.NotContains(t, buf.String(), "compare can never")
	buf.Reset()
	require.NoError(t, WriteMarkdown(&buf, rows, table.Columns{}))
	assert.NotContains(t, buf.String(), "spread")
	assert.NotContains(t, buf.String(), "compare can never")

	buf.Reset()
	require.NoError(t, WriteCSV(&buf, rows, table.Columns{}))
	recs, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	assert.Contains(t, recs[0], "spread")
	assert.Equal(t, "", recs[1][slices.Index(recs[0], "spread")])
	assert.Equal(t, few, recs[1][len(recs[1])-1])

	// Built-in workloads keep the spread column.
	rows = sampleRows()[:2]
	buf.Reset()
	require.NoError(t, WriteText(&buf, rows, table.View{}))
	assert.Contains(t, buf.String(), "spread")
}
