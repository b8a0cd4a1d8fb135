package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/report"
)

func recorded(name string) string {
	return filepath.Join("..", "..", "internal", "collect", "testdata", name)
}

// Everything recovered: exit 0, one JSON array that compare reads, a
// summary on stderr.
func TestCollectAllRecovered(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.json")
	code, stdout, stderr := runCLI("collect", "-o", out, recorded("single.log"), recorded("timestamps.log"))
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, "throttlebench: collect: 2 results from 3 pods or files, nodes node-a (1), node-b (1); 0 without a result; 1 duplicates left out\n", stderr)
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	reps, err := report.Load(f)
	require.NoError(t, err)
	require.Len(t, reps, 2)
	assert.Equal(t, "node-a", reps[0].Host.Node)
}

// A pod without a result: listed with its reason, the others written, exit 1.
func TestCollectSomeMissing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.json")
	code, _, stderr := runCLI("collect", "-o", out, recorded("prefixed.log"), recorded("truncated.log"))
	assert.Equal(t, exitFailure, code)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Len(t, lines, 4, stderr)
	assert.Equal(t, `throttlebench: collect: no result from pod/tb-rt-c1-n0-d8w3r/throttlebench: no result in the log; its last line: "throttlebench: the run failed: reading /sys/fs/cgroup/cpu.max: permission denied"`, lines[0])
	assert.Contains(t, lines[1], "no result from "+recorded("truncated.log")+": truncated")
	assert.Equal(t, "throttlebench: collect: 3 results from 5 pods or files, nodes node-a (1), node-b (1), node-c (1); 2 without a result", lines[2])
	assert.Equal(t, "throttlebench: 2 of 5 pods or files left no result or a broken one (listed above); the 3 results recovered are written", lines[3])
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	reps, err := report.Load(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Len(t, reps, 3)
}

// Nothing recovered: exit 1, nothing written.
func TestCollectNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.json")
	code, _, stderr := runCLI("collect", "-o", out, recorded("failed.log"), recorded("empty.log"))
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "no result recovered from")
	assert.NoFileExists(t, out)
}

// A Sonobuoy archive, and the same tree extracted into a directory.
func TestCollectSonobuoy(t *testing.T) {
	code, stdout, stderr := runCLI("collect", recorded("sonobuoy.tar.gz"))
	assert.Equal(t, exitFailure, code, "node-c's pod failed")
	assert.Contains(t, stderr, "no result from plugins/throttlebench-rt-c0/results/node-c/error.json: an error result:")
	reps, err := report.Load(strings.NewReader(stdout))
	require.NoError(t, err)
	require.Len(t, reps, 2)
	assert.Equal(t, "node-b", reps[1].Host.Node, "from the path: the result names none")
}

func TestCollectDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"single.log", "failed.log"} {
		data, err := os.ReadFile(recorded(name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	code, stdout, stderr := runCLI("collect", dir)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "no result from "+filepath.Join(dir, "failed.log"))
	reps, err := report.Load(strings.NewReader(stdout))
	require.NoError(t, err)
	assert.Len(t, reps, 1)
}

// --node keeps one node's results: what compares one node with another.
func TestCollectNodeFilter(t *testing.T) {
	code, stdout, stderr := runCLI("collect", "--node", "node-b", recorded("timestamps.log"))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "kept 1 of them (--node node-b)")
	reps, err := report.Load(strings.NewReader(stdout))
	require.NoError(t, err)
	require.Len(t, reps, 1)
	assert.Equal(t, "node-b", reps[0].Host.Node)

	code, _, stderr = runCLI("collect", "--node", "node-x", recorded("timestamps.log"))
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "none of the 2 results recovered is from --node node-x")
}

// --node leaves out what is missing from the other nodes, where it is
// known which node that was: node-c's failed pod does not make a
// collection of node-a's results fail.
func TestCollectNodeFilterIgnoresOtherNodesFailures(t *testing.T) {
	code, stdout, stderr := runCLI("collect", "--node", "node-a", recorded("sonobuoy.tar.gz"))
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "node-c")
	assert.Contains(t, stderr, "; 1 without a result; kept 1 of them (--node node-a), leaving out 1 without a result from other nodes")
	reps, err := report.Load(strings.NewReader(stdout))
	require.NoError(t, err)
	require.Len(t, reps, 1)

	code, _, stderr = runCLI("collect", "--node", "node-a,node-c", recorded("sonobuoy.tar.gz"))
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "no result from plugins/throttlebench-rt-c0/results/node-c/error.json")
}

// A pod with two reasons (a result cut short, then JSON that is no
// result) is one pod without a result, not two.
func TestCollectCountsSourcesNotReasons(t *testing.T) {
	data, err := os.ReadFile(recorded("single.log"))
	require.NoError(t, err)
	log := "{\n  \"schema_version\": 1,\n{\"hello\": 1}\n" + string(data)
	var out, errb bytes.Buffer
	err = runCollect(options.Collect{}, []string{"-"}, strings.NewReader(log), &out, &errb)
	require.Error(t, err)
	assert.Equal(t, "1 of 1 pods or files left no result or a broken one (listed above); the 1 results recovered are written", err.Error())
	assert.Equal(t, 2, strings.Count(errb.String(), "no result from stdin"), errb.String())
	assert.Contains(t, errb.String(), "; 1 without a result")
}

// stdin, the default input.
func TestCollectStdin(t *testing.T) {
	data, err := os.ReadFile(recorded("prefixed.log"))
	require.NoError(t, err)
	var out, errb bytes.Buffer
	err = runCollect(options.Collect{}, []string{"-"}, bytes.NewReader(data), &out, &errb)
	require.Error(t, err, "one pod failed")
	reps, err := report.Load(&out)
	require.NoError(t, err)
	assert.Len(t, reps, 3)
	assert.Contains(t, errb.String(), "3 results from 4 pods or files")
}
