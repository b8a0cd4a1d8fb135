package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// needUsage skips a test that reads this process's own usage counter where
// the host has none.
func needUsage(t *testing.T) {
	t.Helper()
	if _, err := (cgroup.Host{Root: "/"}).UsageCgroup(""); err != nil {
		t.Skipf("no usage counter for this process's cgroup: %v", err)
	}
}

func TestSampleUnknownCgroupExits2(t *testing.T) {
	needUsage(t)
	for _, args := range [][]string{
		{"sample", "--cgroup", "no-such-cgroup-" + strconv.Itoa(os.Getpid())},
		{"sample", "--pid", "2147483647"},
	} {
		code, stdout, stderr := runCLI(args...)
		assert.Equal(t, exitUsage, code, stderr)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "invalid --"+strings.TrimPrefix(args[1], "--"))
	}
}

func TestSampleOwnCgroup(t *testing.T) {
	needUsage(t)
	code, stdout, stderr := runCLI("sample", "--interval", "10ms", "--duration", "50ms", "--format", "csv")
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	assert.Equal(t, "t_ms,span_ms,usage_cpus", lines[0])
	assert.GreaterOrEqual(t, len(lines), 2, "at least one interval: %q", stdout)
}

func TestSampleOwnCgroupPlot(t *testing.T) {
	needUsage(t)
	path := filepath.Join(t.TempDir(), "x.svg")
	code, stdout, stderr := runCLI("sample", "--duration", "300ms", "--format", "json", "--plot", path)
	require.Equal(t, exitOK, code, stderr)
	var f usage.File
	require.NoError(t, json.Unmarshal([]byte(stdout), &f), "the output is written as without --plot")
	assert.Contains(t, readSVG(t, path), ">per 100ms<")
}
