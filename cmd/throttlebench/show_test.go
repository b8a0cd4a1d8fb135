package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// showFixture is a result the real binary wrote (internal/show/testdata).
func showFixture(name string) string {
	return filepath.Join("..", "..", "internal", "show", "testdata", name)
}

// show reads every kind back: its text, and its JSON.
func TestShowEachKind(t *testing.T) {
	for file, want := range map[string]string{
		"run.json":               "mean",
		"sweep.json":             "workers  cpus",
		"latency.json":           "open loop: poisson arrivals",
		"latency-list.json":      "burst  cpus",
		"latency-instances.json": "instances: 3 requests at the same instant",
		"latency-target.json":    "client: this process, outside any slice",
		"sample.json":            "usage (CPUs)",
		"simulate.json":          "burst model: pareto demand",
		"size.json":              "#  cpus             quota",
	} {
		code, stdout, stderr := runCLI("show", showFixture(file))
		require.Equal(t, exitOK, code, "%s: %s", file, stderr)
		assert.Contains(t, stdout, want, file)
		// Every value kept: internal/show's TestShowJSONIsTheFile.
		code, stdout, stderr = runCLI("show", showFixture(file), "--format", "json")
		require.Equal(t, exitOK, code, "%s: %s", file, stderr)
		assert.True(t, json.Valid([]byte(stdout)), file)
	}
}

// What cannot be shown is refused: exit 2, one line, nothing written.
func TestShowRefuses(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "cells.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"cells": []}`), 0o644))
	svg := filepath.Join(dir, "run.svg")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show"}, "show takes one result file, FILE (what run, sweep, latency, sample, simulate or size wrote with -o); got 0 arguments"},
		{[]string{"show", "a.json", "b.json"}, "show takes one result file, FILE"},
		{[]string{"show", filepath.Join(dir, "missing.json")}, `cannot read "` + filepath.Join(dir, "missing.json")},
		{[]string{"show", other}, `"` + other + `" is no result show reads (run, sweep, latency, sample, simulate, size)`},
		{[]string{"show", showFixture("run.json"), "--plot", svg}, `invalid --plot "` + svg + `": a run result has no picture to draw again`},
		{[]string{"show", showFixture("run.json"), "--plot", "run.pdf"}, "want a file name ending in .svg or .png"},
		{[]string{"show", showFixture("sample.json"), "--format", "gobench"}, `invalid --format "gobench": a sample result is shown as json, text, csv`},
		{[]string{"show", showFixture("sample.json"), "--columns", "p99_ms"}, `invalid --columns "p99_ms": a sample result's --format text has no table of configurations`},
		{[]string{"show", showFixture("run.json"), "--columns", "p99_ms"}, "a run result's --format text has no table of configurations"},
		{[]string{"show", showFixture("sweep.json"), "--columns", "p99_ms", "--format", "json"}, "--columns \"p99_ms\": a sweep result's --format json has no table"},
		{[]string{"show", showFixture("sweep.json"), "--columns", "nonsense"}, "nonsense"},
		{[]string{"show", showFixture("sweep.json"), "--format", "yaml"}, `--format "yaml"`},
		{[]string{"show", showFixture("simulate.json"), "--format", "bmf"}, `invalid --format "bmf": a simulate result is shown as text, json, csv, markdown`},
		{[]string{"show", showFixture("size-busy.json"), "--plot", svg}, "this size result measured no level"},
	} {
		code, stdout, stderr := runCLI(c.args...)
		assert.Equal(t, exitUsage, code, "%v: %s", c.args, stderr)
		assert.Empty(t, stdout, "%v", c.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %q", c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v", c.args)
	}
	assert.NoFileExists(t, svg)
}

// show's --plot draws what the command drew; --columns picks the table's
// columns; warnings reach stderr where the output does not show them, as
// the command's did.
func TestShowPlotColumnsWarnings(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "sweep.svg")
	code, stdout, stderr := runCLI("show", showFixture("sweep.json"), "--plot", svg, "--columns", "p99_ms")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, []string{"workers", "cpus", "p99_ms", "note"}, strings.Fields(strings.SplitN(stdout, "\n", 2)[0]))
	assert.Empty(t, stderr, "the text shows the warnings")
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<svg")

	code, _, stderr = runCLI("show", showFixture("sweep.json"), "--format", "csv")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "warning: workers=1 cpus=0.5: ", "CSV does not show them: stderr does, labelled")

	png := filepath.Join(dir, "usage.png")
	code, _, stderr = runCLI("show", showFixture("sample.json"), "--plot", png)
	require.Equal(t, exitOK, code, stderr)
	assert.FileExists(t, png)
}

// simulate's table, shown again from its JSON, is what simulate printed:
// the same cells from the same seed, but for the simulator's own speed.
func TestShowSimulateIsWhatSimulatePrinted(t *testing.T) {
	sim := []string{"simulate", "--cgroups", "2,4", "--util", "0.5", "--buffer", "1,inf", "--periods", "200", "--warmup", "10", "--replicas", "2"}
	saved := filepath.Join(t.TempDir(), "cells.json")
	code, _, stderr := runCLI(append(sim, "-o", saved)...)
	require.Equal(t, exitOK, code, stderr)
	code, printed, stderr := runCLI(sim...)
	require.Equal(t, exitOK, code, stderr)
	code, shown, stderr := runCLI("show", saved)
	require.Equal(t, exitOK, code, stderr)
	// Its figure can move a word to the next line: compared word by word.
	speed := regexp.MustCompile(`[0-9.]+\s+million`)
	mask := func(s string) []string { return strings.Fields(speed.ReplaceAllString(s, "# million")) }
	assert.Equal(t, mask(printed), mask(shown))
	assert.Contains(t, shown, "inf")
}

// A size result (issue 46): its text, markdown and CSV, and --plot the
// chart size drew; the warnings on stderr where the output does not show
// them.
func TestShowSize(t *testing.T) {
	code, stdout, stderr := runCLI("show", showFixture("size.json"))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "recommendation: 0.4 CPUs (quota 40ms per 100ms period)")
	assert.Contains(t, stdout, "14.6 [13.8, 16.2] (1× refused: contended)")
	assert.Empty(t, stderr, "the text shows the warnings")

	svg := filepath.Join(t.TempDir(), "size.svg")
	code, stdout, stderr = runCLI("show", showFixture("size.json"), "--format", "markdown", "--plot", svg)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "| # | cpus | quota | burst | windows | p99_ms | verdict | confidence |")
	assert.Contains(t, stderr, "warning: 2 of 30 windows were refused")
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<svg")

	code, stdout, stderr = runCLI("show", showFixture("size-busy.json"), "--format", "csv")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "1,unlimited,max,0s,0/20,,,,undecided,0,,refused: contended", strings.Split(stdout, "\n")[1])
}
