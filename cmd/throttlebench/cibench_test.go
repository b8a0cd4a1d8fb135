package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// show writes each kind with figures in the formats CI tools read, and
// says on stderr why a size result without a recommendation has none.
func TestShowCIFormats(t *testing.T) {
	for _, file := range []string{"run.json", "sweep.json", "latency.json", "latency-list.json", "size.json"} {
		code, stdout, stderr := runCLI("show", showFixture(file), "--format", "gobench")
		require.Equal(t, exitOK, code, "%s: %s", file, stderr)
		assert.Regexp(t, `(?m)^Unit \S+ better=lower$`, stdout, file)
		assert.Regexp(t, `(?m)^kernel: \S+`, stdout, file)
		assert.Regexp(t, `(?m)^Benchmark\S+\t\d+\t`, stdout, file)
		for _, format := range []string{"github-action-benchmark", "bmf"} {
			code, stdout, stderr = runCLI("show", showFixture(file), "--format", format)
			require.Equal(t, exitOK, code, "%s %s: %s", file, format, stderr)
			var v any
			require.NoError(t, json.Unmarshal([]byte(stdout), &v), "%s %s", file, format)
			assert.NotEmpty(t, v, "%s %s", file, format)
		}
	}
	code, stdout, stderr := runCLI("show", showFixture("size-busy.json"), "--format", "gobench")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "period: 100ms\n")
	assert.NotContains(t, stdout, "Benchmark")
	assert.Contains(t, stderr, "warning: --format gobench holds no benchmark: its figure is the recommendation in CPUs, and there is none (recommendation: none, undecided:")
}
