package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What collect writes, shown as a sweep shows what it ran: a node column,
// a line per node in the plot.
func TestSweepFromCollected(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "results.json")
	code, _, stderr := runCLI("collect", "-o", results, recorded("timestamps.log"))
	require.Equal(t, exitOK, code, stderr)

	code, stdout, stderr := runCLI("sweep", "--from", results)
	require.Equal(t, exitOK, code, stderr)
	head, table, _ := strings.Cut(stdout, "\n\n")
	assert.Equal(t, "same in every row: p50_ms=4.8, cost_cpu_s=0.0096, spread=1.00; empty:\n"+
		"  throttled_fraction; --columns all shows them", head, "what the two nodes share, above the table")
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	require.Len(t, lines, 3, stdout)
	assert.Equal(t, []string{"node", "mean_ms", "p99_ms", "cov", "model_ratio"}, strings.Fields(lines[0]))
	assert.True(t, strings.HasPrefix(strings.TrimSpace(lines[2]), "node-b"), lines[2])

	code, stdout, stderr = runCLI("sweep", "--from", results, "--columns", "all")
	require.Equal(t, exitOK, code, stderr)
	assert.True(t, strings.HasPrefix(strings.TrimSpace(stdout), "node  mean_ms  p50_ms  p99_ms"), stdout)
	code, stdout, stderr = runCLI("sweep", "--from", results, "--columns", "p99_ms,spread")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, []string{"node", "p99_ms", "spread"}, strings.Fields(strings.SplitN(stdout, "\n", 2)[0]))

	svg := filepath.Join(dir, "nodes.svg")
	code, stdout, stderr = runCLI("sweep", "--from", results, "--format", "csv", "--plot", svg)
	require.Equal(t, exitOK, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "node,mean_ms,"), stdout)
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	for _, want := range []string{"throttlebench sweep on 2 nodes (node-a, node-b)", ">node=node-a<", ">node=node-b<", "CPU share"} {
		assert.True(t, strings.Contains(string(data), want), "the picture says %q", want)
	}
}
