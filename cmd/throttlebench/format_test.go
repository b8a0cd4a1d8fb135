package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/testenv"
)

// The one rule for formats (issue 28): text unless --format or -o's
// extension says otherwise, on a terminal and in a pipe alike.
func TestFormatRule(t *testing.T) {
	sim := []string{"simulate", "--cgroups", "2", "--util", "0.5", "--periods", "200", "--warmup", "10", "--replicas", "2"}
	dir := t.TempDir()
	out := func(name string, extra ...string) string {
		path := filepath.Join(dir, name)
		code, _, stderr := runCLI(append(append(append([]string{}, sim...), "-o", path), extra...)...)
		require.Equal(t, exitOK, code, stderr)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return string(b)
	}

	code, stdout, stderr := runCLI(sim...)
	require.Equal(t, exitOK, code, stderr)
	assert.False(t, json.Valid([]byte(stdout)), "text to a pipe, as on a terminal: %q", stdout)

	var cells map[string]any
	require.NoError(t, json.Unmarshal([]byte(out("cells.json")), &cells), "a .json file is JSON")
	assert.NotEmpty(t, cells)
	assert.True(t, strings.HasPrefix(out("cells.csv"), "cgroups,"), "a .csv file is CSV")
	assert.True(t, strings.HasPrefix(out("cells.md"), "|"), "a .md file is markdown")
	assert.False(t, json.Valid([]byte(out("cells.out"))), "an extension that names no format: text")
	assert.True(t, strings.HasPrefix(out("given.json", "--format", "csv"), "cgroups,"), "--format wins over the extension")

	// inspect writes text and JSON only, and has no -o: its default is text.
	code, stdout, _ = runCLI("inspect")
	if code == exitOK {
		assert.False(t, json.Valid([]byte(stdout)))
	}
	// A format the command does not write is refused (issue 33), before
	// anything runs: sample has no markdown (checked through the flag
	// alone: sampling needs a cgroup counter).
	cmd := newRootCmd(&strings.Builder{}, &strings.Builder{}, new(bool))
	sample, _, err := cmd.Find([]string{"sample"})
	require.NoError(t, err)
	require.NoError(t, sample.Flags().Parse([]string{"-o", "x.md"}))
	require.ErrorContains(t, formatFromOutput(sample), `invalid --output "x.md": sample writes json, text, csv (.json, .txt, .csv), not markdown`)
	// Its help names the extensions it writes, and inspect, without -o,
	// none (issue 33: both said .json, .csv, .md).
	assert.Contains(t, sample.Flags().Lookup("format").Usage, "what -o's extension names (.json, .txt, .csv), else text")
	inspectCmd, _, err := cmd.Find([]string{"inspect"})
	require.NoError(t, err)
	assert.Equal(t, "output format: text, json", inspectCmd.Flags().Lookup("format").Usage)
	// .yaml names a format too: no command but sweep --emit kubernetes
	// writes it, and the others wrote text under it (issue 33).
	require.NoError(t, sample.Flags().Parse([]string{"-o", "x.yaml"}))
	require.ErrorContains(t, formatFromOutput(sample), `invalid --output "x.yaml": sample writes json, text, csv (.json, .txt, .csv), not yaml`)
	sweepCmd, _, err := cmd.Find([]string{"sweep"})
	require.NoError(t, err)
	require.NoError(t, sweepCmd.Flags().Parse([]string{"--emit", "kubernetes", "-o", "jobs.yml"}))
	require.NoError(t, formatFromOutput(sweepCmd))
	assert.Equal(t, "text", sweepCmd.Flags().Lookup("format").Value.String(), "the emitted YAML is no --format")
	require.NoError(t, sample.Flags().Parse([]string{"-o", "x.csv"}))
	require.NoError(t, formatFromOutput(sample))
	assert.Equal(t, "csv", sample.Flags().Lookup("format").Value.String())
}

// Every -o names a format its command writes, or is refused: exit 2, one
// line naming --output, the formats the command writes and their
// extensions, nothing created (issue 33: run -o r.csv wrote text).
func TestOutputExtensionRefused(t *testing.T) {
	fixture := func(name string) string { return filepath.Join("..", "..", "internal", "show", "testdata", name) }
	for _, c := range []struct {
		args []string
		out  string
		want string
	}{
		{[]string{"sample", "--duration", "1s"}, "usage.md", "sample writes json, text, csv (.json, .txt, .csv), not markdown; give the file one of those extensions, or --format to write one of them under this name"},
		{[]string{"compare", fixture("run.json"), fixture("run.json")}, "c.csv", "compare writes text, markdown, json, github-action-benchmark, bmf (.txt, .md, .json), not csv; give the file one of those extensions, or --format"},
		{[]string{"collect", "-"}, "results.csv", "collect writes json (.json), not csv; give the file that extension"},
		{[]string{"collect", "-"}, "results.txt", "collect writes json (.json), not text"},
		{[]string{"collect", "-"}, "results.md", "collect writes json (.json), not markdown"},
		{[]string{"sweep", "--emit", "kubernetes", "--cpus", "0.5,1"}, "jobs.json", "sweep --emit kubernetes writes yaml (.yaml), not json; give the file that extension"},
		{[]string{"show", fixture("sample.json")}, "usage.md", "a sample result is shown as json, text, csv; give --format"},
		{[]string{"show", fixture("latency.json")}, "l.markdown.txt", ""}, // text: shown
	} {
		path := filepath.Join(t.TempDir(), c.out)
		code, stdout, stderr := runCLI(append(c.args, "-o", path)...)
		if c.want == "" {
			assert.Equal(t, exitOK, code, stderr)
			assert.FileExists(t, path)
			continue
		}
		assert.Equal(t, exitUsage, code, "%v -o %s: %s", c.args, c.out, stderr)
		assert.Empty(t, stdout)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
		assert.Contains(t, stderr, `--output "`+path+`"`)
		assert.Contains(t, stderr, c.want)
		assert.NoFileExists(t, path, "nothing created")
	}
}

// show honours -o's extension with the formats of the result's kind: a
// sweep as markdown, a run as a one-row CSV table, as run -o r.csv writes.
func TestShowOutputExtension(t *testing.T) {
	dir := t.TempDir()
	fixture := func(name string) string { return filepath.Join("..", "..", "internal", "show", "testdata", name) }
	md := filepath.Join(dir, "sweep.md")
	code, _, stderr := runCLI("show", fixture("sweep.json"), "-o", md)
	require.Equal(t, exitOK, code, stderr)
	b, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "| workers | cpus | mean_ms |"), string(b))
	csv := filepath.Join(dir, "run.csv")
	code, _, stderr = runCLI("show", fixture("run.json"), "-o", csv)
	require.Equal(t, exitOK, code, stderr)
	b, err = os.ReadFile(csv)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 2, "a header and the run's row")
	assert.True(t, strings.HasPrefix(lines[0], "workers,cpus,mean_ms,"), lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "2,0.5,"), lines[1])
}

// Warnings reach a person once, in every format (issue 28): on stderr,
// unless the text on stdout shows them already.
func TestWarnOnce(t *testing.T) {
	few := report.Warning{Kind: report.KindFewPeriods, Text: "few periods: raise --iterations"}
	busy := report.Warning{Kind: report.KindBusyMachine, Text: "busy machine"}
	ws := []labelled{{Warning: few}, {Warning: few}, {Label: "cpus=0.5", Warning: busy}}
	for _, c := range []struct {
		format, output, want string
	}{
		{"text", "", ""},
		{"text", "out.txt", "warning: few periods: raise --iterations\nwarning: cpus=0.5: busy machine\n"},
		{"json", "", "warning: few periods: raise --iterations\nwarning: cpus=0.5: busy machine\n"},
		{"gobench", "", "warning: few periods: raise --iterations\nwarning: cpus=0.5: busy machine\n"},
	} {
		var b strings.Builder
		warnOnce(&b, c.format, c.output, ws)
		assert.Equal(t, c.want, b.String(), "%s to %q", c.format, c.output)
	}

	same := func(r []report.Warning) []report.Warning { return r }
	rows := []sweep.Outcome[[]report.Warning]{
		{Config: sweep.Config{{Flag: "cpus", Value: "0.2"}}, Report: []report.Warning{few}},
		{Config: sweep.Config{{Flag: "cpus", Value: "0.5"}}, Skipped: "the kernel refused"},
	}
	got := outcomeWarnings(rows, same)
	require.Len(t, got, 1, "a skipped configuration has no report")
	assert.Equal(t, "cpus=0.2", got[0].Label, "several configurations: each warning says which")
	assert.Equal(t, few, got[0].Warning)
	assert.Empty(t, outcomeWarnings(rows[:1], same)[0].Label, "one configuration: no label")

	// A warning every configuration that ran has is said once, unlabelled
	// (issue 33: a sweep said "few iterations" once per row).
	rows = append(rows, sweep.Outcome[[]report.Warning]{Config: sweep.Config{{Flag: "cpus", Value: "1"}}, Report: []report.Warning{busy, few}})
	got = outcomeWarnings(rows, same)
	assert.Equal(t, []labelled{{Warning: few}, {Label: "cpus=1", Warning: busy}}, got)
}

// run writes what -o's extension names: CSV and markdown as the one-row
// table a sweep of its configuration shows, the values given other than
// their defaults its keys (issue 33: they were text);
// an extension that names no format stays text.
func TestRunOutputExtension(t *testing.T) {
	testenv.NeedRoot(t, "run creates a slice")
	dir := t.TempDir()
	// One iteration: the result warns that compare could never find a
	// change in it, which stderr says only where the result is JSON,
	// the one format compare reads (issue 33).
	outErr := func(name string) (string, string) {
		path := filepath.Join(dir, name)
		code, _, stderr := runCLI("run", "--workload", "spin", "--units", "100", "--batch", "1", "--iterations", "1", "--warmup", "0", "--cpus", "0.5", "-o", path)
		require.Equal(t, exitOK, code, stderr)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		if name == "r.json" {
			assert.Contains(t, stderr, "compare can never find a change")
		} else {
			assert.NotContains(t, stderr, "compare can never find a change", name)
		}
		return string(b), stderr
	}
	out := func(name string) string { o, _ := outErr(name); return o }
	csv := strings.Split(out("r.csv"), "\n")
	assert.True(t, strings.HasPrefix(csv[0], "units,cpus,mean_ms,p50_ms,"), csv[0])
	assert.True(t, strings.HasPrefix(csv[1], "100,0.5,"), csv[1])
	assert.True(t, strings.HasPrefix(out("r.md"), "| units | cpus | mean_ms |"))
	assert.Contains(t, out("r.out"), "mean", "text")
	assert.False(t, json.Valid([]byte(out("r.out"))))
	assert.True(t, json.Valid([]byte(out("r.json"))))
}
