package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --columns all shows every column of simulate's table, a list chooses
// them in CSV too, after the keys that vary.
func TestSimulateColumns(t *testing.T) {
	args := []string{"simulate", "--grid", "--periods", "200", "--warmup", "10", "--replicas", "2", "--cgroups", "5"}
	code, out, errs := runCLI(append(args, "--format", "text", "--columns", "all")...)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "left out")
	_, table, _ := strings.Cut(out, "\n\n")
	assert.Equal(t, []string{"cgroups", "util", "buffer", "e_wcet", "p_wcet_1", "e_wcet_periods", "wcet_p90", "wcet_p99", "wcet_p999",
		"wcet_max", "throttled_share"}, strings.Fields(strings.SplitN(table, "\n", 2)[0]), "every column, the one --cgroups too")

	code, out, errs = runCLI(append(args, "--format", "csv", "--columns", "util,wcet_p99,seconds")...)
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(out, "util,buffer,wcet_p99,seconds\n"), "the keys that vary, then the list: %s", out[:80])
}

// compare's table fits 80 columns when stdout is no terminal; --columns
// all shows the model ratio it left out.
func TestCompareColumns(t *testing.T) {
	code, out, errs := runCLI("compare", fixture("base.jsonl"), fixture("regression.jsonl"))
	require.Equal(t, exitRegression, code, errs)
	assert.Contains(t, out, "left out to fit 80 columns: throttled, model_ratio; --columns all shows them\n")
	assert.NotContains(t, out, "model ratio\n")

	code, out, errs = runCLI("compare", "--columns", "all", fixture("base.jsonl"), fixture("regression.jsonl"))
	require.Equal(t, exitRegression, code, errs)
	assert.NotContains(t, out, "left out")
	assert.Contains(t, out, "  throttled   model ratio\n")

	code, out, errs = runCLI("compare", "--columns", "model_ratio", "--format", "markdown", fixture("base.jsonl"), fixture("regression.jsonl"))
	require.Equal(t, exitRegression, code, errs)
	assert.Contains(t, out, "| configuration | model ratio |\n")
}
