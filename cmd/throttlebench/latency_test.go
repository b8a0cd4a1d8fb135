package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// latency takes its own flags and the shared ones, not run's batches.
func TestLatencyHelpListsItsFlags(t *testing.T) {
	code, stdout, stderr := runCLI("latency", "--help")
	require.Equal(t, exitOK, code, stderr)
	for _, f := range []string{"--rate", "--arrivals", "--on", "--off", "--work", "--wait", "--queue", "--duration", "--seed",
		"--workers", "--gomaxprocs", "--cpus", "--quota", "--period", "--burst", "--plot", "--max-configs"} {
		assert.Contains(t, stdout, f+" ")
	}
	for _, f := range []string{"--batch", "--cost", "--iterations", "--warmup", "--min-time", "--workload"} {
		assert.NotContains(t, stdout, f+" ")
	}
	assert.Contains(t, stdout, "worker threads serving requests from the queue", "workers' help in latency")
	assert.Contains(t, stdout, `output format: json, text, csv, markdown, gobench, github-action-benchmark, bmf; without it, what -o's extension names (.json, .txt, .csv, .md), else text (default "text")`)
	assert.Contains(t, stdout, "max: no quota (as --quota max); a list or range, max an unlimited arm beside the limited ones")
	assert.Contains(t, stdout, "send the requests to this http:// (or https://) URL", "https is taken too (issue 33)")
	assert.Contains(t, stdout, "with --target and no --serve: the server's cgroup", "--cgroup PATH, which the help left out")

	// run takes one --cpus: its help speaks of no list (issue 33).
	code, stdout, stderr = runCLI("run", "--help")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "max: no quota (as --quota max)\n")
	assert.NotContains(t, stdout, "in a list")
}
