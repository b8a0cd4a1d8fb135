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
	"github.com/throttlebench/throttlebench/internal/testenv"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// needUsage fails a test that reads this process's own usage counter
// where UsageCgroup, the very function sample is built on, cannot find it:
// every Linux host with a cgroup filesystem has one (cpuacct on v1, the
// cgroup's own cpu.stat on v2), so an error here is sample's defect or a
// host without cgroups, and neither may pass as a skip (issue 32).
func needUsage(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/sys/fs/cgroup"); err != nil {
		testenv.SkipOrFail(t, "no cgroup filesystem here: "+err.Error())
	}
	_, err := (cgroup.Host{Root: "/"}).UsageCgroup("")
	require.NoError(t, err, "this process's own usage counter")
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
