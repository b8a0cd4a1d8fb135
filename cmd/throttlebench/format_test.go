package main

import (
	"encoding/json"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	// A format the command does not write is not inferred: sample has no
	// markdown, so a .md name leaves text (checked through the flag alone:
	// sampling needs a cgroup counter).
	cmd := newRootCmd(&strings.Builder{}, &strings.Builder{}, new(bool))
	sample, _, err := cmd.Find([]string{"sample"})
	require.NoError(t, err)
	require.NoError(t, sample.Flags().Parse([]string{"-o", "x.md"}))
	require.NoError(t, formatFromOutput(sample))
	assert.Equal(t, "text", sample.Flags().Lookup("format").Value.String())
	require.NoError(t, sample.Flags().Parse([]string{"-o", "x.csv"}))
	require.NoError(t, formatFromOutput(sample))
	assert.Equal(t, "csv", sample.Flags().Lookup("format").Value.String())
}

// Warnings reach a person once, in every format (issue 28): on stderr,
// unless the text on stdout shows them already.
func TestWarnOnce(t *testing.T) {
	ws := []labelled{{text: "few periods: raise --iterations"}, {text: "few periods: raise --iterations"}, {label: "cpus=0.5", text: "busy machine"}}
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

	rows := []sweep.Outcome[[]string]{
		{Config: sweep.Config{{Flag: "cpus", Value: "0.2"}}, Report: []string{"few periods"}},
		{Config: sweep.Config{{Flag: "cpus", Value: "0.5"}}, Skipped: "the kernel refused"},
	}
	got := outcomeWarnings(rows, func(r []string) []string { return r })
	require.Len(t, got, 1, "a skipped configuration has no report")
	assert.Equal(t, "cpus=0.2", got[0].label, "several configurations: each warning says which")
	assert.Equal(t, "few periods", got[0].text)
	assert.Empty(t, outcomeWarnings(rows[:1], func(r []string) []string { return r })[0].label, "one configuration: no label")
}
