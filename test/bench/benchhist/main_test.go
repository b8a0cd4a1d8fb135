package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goTest is go test -bench's output for one benchmark with these ns/op.
func goTest(ns ...float64) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: github.com/throttlebench/throttlebench/internal/stats\ncpu: AMD EPYC\n")
	for _, v := range ns {
		fmt.Fprintf(&b, "BenchmarkSummarize-2   \t     200\t    %.0f ns/op\n", v)
	}
	b.WriteString("PASS\nok  \tgithub.com/throttlebench/throttlebench/internal/stats\t1.2s\n")
	return b.String()
}

func runMain(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := run(strings.NewReader(stdin), &out, &errOut, args)
	return code, out.String(), errOut.String()
}

func TestRecordThenCheck(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	in := goTest(865000, 866000, 867000, 868000, 869000)
	code, out, errOut := runMain(t, in, "record", "-history", hist, "-time", "2026-01-01T10:00:00Z")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, in, out, "the output goes on as it came")
	assert.Contains(t, errOut, "1 benchmark of run 2026-01-01T10:00:00Z")
	file := filepath.Join(hist, "internal/stats/BenchmarkSummarize.jsonl")
	require.FileExists(t, file)

	code, out, _ = runMain(t, "", "check", "-history", hist)
	assert.Equal(t, exitOK, code, "a first run has nothing to move from")
	assert.Contains(t, out, "first run: no earlier run to compare with")

	code, _, errOut = runMain(t, goTest(1000000, 1001000, 1002000, 1003000, 1004000), "record", "-history", hist, "-time", "2026-01-02T10:00:00Z")
	require.Equal(t, 0, code, errOut)
	code, out, _ = runMain(t, "", "check", "-history", hist)
	assert.Equal(t, exitMoved, code, out)
	assert.Contains(t, out, "moved, worse")
	assert.Contains(t, out, "1 of 1 metric moved")

	code, out, _ = runMain(t, "", "check", "-history", hist, "-threshold", "20%")
	assert.Equal(t, exitOK, code, "+15.5%% is under a 20%% threshold: %s", out)

	code, out, _ = runMain(t, "", "check", "-history", hist, "-format", "markdown")
	assert.Equal(t, exitMoved, code)
	assert.Contains(t, out, "| internal/stats | BenchmarkSummarize-2 | ns/op |")

	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(data), "\n"), "a line per run")
}

// make bench runs go test through record: the command's status is
// record's, a failed benchmark's neighbours are recorded, and an
// interrupted run records nothing.
func TestRecordRunsTheCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(out, []byte(goTest(1, 2, 3)+"--- FAIL: BenchmarkOther\nFAIL\n"), 0o644))

	hist := filepath.Join(dir, "history")
	code, stdout, errOut := runMain(t, "", "record", "-history", hist, "--", "sh", "-c", `cat "$0"; exit 1`, out)
	assert.Equal(t, 1, code, "go test's failure is make bench's")
	assert.Contains(t, stdout, "BenchmarkSummarize-2")
	assert.Contains(t, errOut, "1 benchmark of run")
	assert.FileExists(t, filepath.Join(hist, "internal/stats/BenchmarkSummarize.jsonl"))

	hist2 := filepath.Join(dir, "history2")
	code, _, errOut = runMain(t, "", "record", "-history", hist2, "--", "sh", "-c", `cat "$0"; kill -TERM $$`, out)
	assert.Equal(t, 128+15, code)
	assert.Contains(t, errOut, "interrupted: nothing recorded")
	assert.NoDirExists(t, hist2)

	code, _, errOut = runMain(t, "", "record", "-history", hist2, "--", filepath.Join(dir, "no-such-command"))
	assert.Equal(t, exitFailure, code)
	assert.NotEmpty(t, errOut)
}

func TestUsage(t *testing.T) {
	hist := t.TempDir()
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"record", "-time", "yesterday"},
		{"check", "-history", hist, "-alpha", "1"},
		{"check", "-history", hist, "-threshold", "-3"},
		{"check", "-history", hist, "-match", "host"},
		{"check", "-history", hist, "-runs", "-1"},
		{"check", "-history", hist, "-format", "csv"},
		{"check", "-history", hist, "extra"},
	} {
		code, _, errOut := runMain(t, "", args...)
		assert.Equal(t, exitUsage, code, "%q: %s", args, errOut)
		assert.NotEmpty(t, errOut, "%q says why", args)
	}
	code, _, errOut := runMain(t, "", "check", "-history", filepath.Join(hist, "none"))
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errOut, "make bench writes the history")
	code, _, errOut = runMain(t, "", "check", "-history", hist)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errOut, "no history below")
}

// -guest records a VM guest's run (its console on stdin, kernel messages
// among go test's lines) under the guest's kernel, CPU and cgroup v2: a
// check sets it against that guest's runs only, never against this
// host's, so a slower emulated CPU moves nothing.
func TestRecordGuest(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	host := goTest(865000, 866000, 867000)
	code, _, errOut := runMain(t, host, "record", "-history", hist, "-time", "2026-01-01T10:00:00Z")
	require.Equal(t, 0, code, errOut)
	console := "[   12.5] random: crng init done\nkernel: 6.12.117+deb12-amd64\n" +
		strings.Replace(goTest(9e6, 9.1e6, 9.2e6), "cpu: AMD EPYC", "cpu: QEMU Virtual CPU version 2.5+", 1)
	code, _, errOut = runMain(t, console, "record", "-history", hist, "-time", "2026-01-02T10:00:00Z", "-guest", "6.12.117+deb12-amd64")
	require.Equal(t, 0, code, errOut)
	data, err := os.ReadFile(filepath.Join(hist, "internal/stats/BenchmarkSummarize.jsonl"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[1], `"kernel":"6.12.117+deb12-amd64"`)
	assert.Contains(t, lines[1], `"cgroup":{"version":2,"mode":"v2"}`)
	assert.Contains(t, lines[1], `"cpu_model":"QEMU Virtual CPU version 2.5+","num_cpu":2`)
	code, out, _ := runMain(t, "", "check", "-history", hist)
	assert.Equal(t, exitOK, code, "ten times slower in the guest, and nothing moved: %s", out)
}
