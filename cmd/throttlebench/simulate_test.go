package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/usage"
)

// The keys the issue names, each documented in docs/simulate.md.
var simulateKeys = []string{"cgroups", "util", "buffer", "dist", "periods", "seed", "e_wcet", "e_wcet_ci",
	"e_wcet_periods", "e_wcet_periods_ci", "p_wcet_1", "p_wcet_1_ci", "wcet_p90", "wcet_p99", "wcet_p999",
	"wcet_max", "throttled_share", "seconds", "cgroup_periods_per_s"}

func TestSimulateJSON(t *testing.T) {
	code, out, errs := runCLI("simulate", "--cgroups", "4", "--util", "0.8", "--buffer", "inf", "--dist", "exp", "--periods", "2000", "--format", "json")
	require.Equal(t, 0, code, errs)
	var cell map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &cell), "one object for one cell")
	for _, k := range simulateKeys {
		assert.Contains(t, cell, k)
	}
	assert.Equal(t, "inf", cell["buffer"])
	assert.Equal(t, "exp", cell["dist"])
	assert.Len(t, cell["e_wcet_ci"], 2)
	assert.Nil(t, cell["pareto_shape"])

	code, out, errs = runCLI("simulate", "--cgroups", "2,3", "--util", "0.5:0.6:0.1", "--periods", "1000", "--format", "json")
	require.Equal(t, 0, code, errs)
	var cells []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &cells), "an array for lists")
	assert.Len(t, cells, 4)
}

// --grid is the published table's shape; every format parses.
func TestSimulateGridFormats(t *testing.T) {
	args := []string{"simulate", "--grid", "--periods", "200", "--warmup", "10", "--replicas", "2"}
	code, out, errs := runCLI(append(args, "--format", "csv")...)
	require.Equal(t, 0, code, errs)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1+3*7*4)
	assert.Equal(t, []string{"cgroups", "util", "buffer", "dist"}, rows[0][:4])
	assert.Equal(t, []string{"10", "0.1", "0"}, rows[1][:3])
	assert.Equal(t, []string{"30", "0.7", "4"}, rows[len(rows)-1][:3])

	code, out, errs = runCLI(append(args, "--format", "markdown")...)
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2+84)
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, "|") && strings.HasSuffix(l, "|"), l)
		assert.Equal(t, 12, strings.Count(l, "|"), l)
	}

	code, out, errs = runCLI(append(args, "--format", "text", "--cgroups", "5")...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "pareto demand (shape 1.5), capped at 5 × quota")
	assert.Contains(t, out, "95% intervals")
	head, table, _ := strings.Cut(out, "\n\n")
	assert.Contains(t, head, "same in every row: cgroups=5\n", "the one --cgroups above the table, not a column")
	assert.Contains(t, head, "left out to fit 80 columns: ", "stdout is no terminal here: 80 columns")
	lines = strings.Split(strings.TrimSpace(table), "\n")
	assert.Len(t, lines, 1+7*4, "the grid with --cgroups given: 1 × 7 × 4")
	assert.Equal(t, []string{"util", "buffer", "e_wcet", "p_wcet_1"}, strings.Fields(lines[0])[:4])
	for _, l := range lines {
		assert.LessOrEqual(t, utf8.RuneCountInString(l), 80, l)
	}
	assert.Contains(t, out, "1.0000 ± 0 ", "b = 0 is exactly 1")

}

// Same seed, same numbers, whatever --jobs.
func TestSimulateJobsDoNotChangeResults(t *testing.T) {
	get := func(jobs string) []map[string]any {
		code, out, errs := runCLI("simulate", "--cgroups", "3,7", "--util", "0.7", "--buffer", "1,4", "--periods", "4000", "--jobs", jobs, "--seed", "42", "--format", "json")
		require.Equal(t, 0, code, errs)
		var cells []map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &cells))
		for _, c := range cells {
			delete(c, "seconds")
			delete(c, "cgroup_periods_per_s")
		}
		return cells
	}
	assert.Equal(t, get("1"), get("2"))
}

// The empirical path from a trace file as sample writes it.
func TestSimulateEmpiricalFromATrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	f := usage.File{SchemaVersion: usage.SchemaVersion, IntervalMs: 100, TMs: []float64{100, 200, 300, 400}, UsageCPUs: []float64{0.02, 0.02, 0.02, 0.14}}
	data, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))

	// Unscaled: 10 cgroups × the trace's mean 0.05 CPUs is u = 0.5.
	code, out, errs := runCLI("simulate", "--dist", "empirical", "--from", path, "--util", "auto", "--cgroups", "10", "--buffer", "0,2", "--periods", "4000", "--format", "json")
	require.Equal(t, 0, code, errs)
	var cells []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &cells))
	require.Len(t, cells, 2)
	assert.InDelta(t, 0.5, cells[0]["util"], 1e-12)
	assert.InDelta(t, 0.05, cells[0]["demand_mean"], 1e-12, "the trace as recorded")
	assert.Equal(t, 1.0, cells[0]["e_wcet"], "b = 0")
	// A spike of 0.14 against a quota of 0.1 is throttled without a buffer
	// (a quarter of the draws; a little more, as a spike right after a
	// spike finds 0.04 still pending) and paid from the buffer with one.
	assert.InDelta(t, 0.29, cells[0]["throttled_share"], 0.03)
	assert.Less(t, cells[1]["throttled_share"], 0.01)
	assert.Nil(t, cells[0]["cap"])

	// Scaled to --util: the mean demand is u·q.
	code, out, errs = runCLI("simulate", "--dist", "empirical", "--from", path, "--util", "0.3", "--cgroups", "10", "--periods", "1000", "--format", "json")
	require.Equal(t, 0, code, errs)
	var one map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &one))
	assert.InDelta(t, 0.03, one["demand_mean"], 1e-12)
}

func TestSimulatePlot(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"grid.svg", "grid.png"} {
		path := filepath.Join(dir, name)
		code, _, errs := runCLI("simulate", "--cgroups", "10,20", "--util", "0.5,0.7", "--buffer", "0,2,inf", "--periods", "500", "--plot", path)
		require.Equal(t, 0, code, errs)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		if strings.HasSuffix(name, ".svg") {
			dec := xml.NewDecoder(bytes.NewReader(data))
			for {
				if _, err := dec.Token(); err != nil {
					require.Equal(t, "EOF", err.Error(), "valid XML")
					break
				}
			}
			for _, want := range []string{"E[WCET]", "P(WCET = 1)", "buffer 0 (no burst)", "buffer inf (no cap)", "utilisation u", "cgroups m", "WCET: the periods"} {
				assert.True(t, slices.ContainsFunc([]string{string(data)}, func(s string) bool { return strings.Contains(s, want) }), want)
			}
			continue
		}
		img, err := png.Decode(bytes.NewReader(data))
		require.NoError(t, err)
		assert.Greater(t, img.Bounds().Dx(), 1000)
	}
}
