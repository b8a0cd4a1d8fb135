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
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	require.Len(t, lines, 3, stdout)
	assert.True(t, strings.HasPrefix(strings.TrimSpace(lines[0]), "node  mean_ms"), lines[0])
	assert.True(t, strings.HasPrefix(strings.TrimSpace(lines[2]), "node-b"), lines[2])

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
