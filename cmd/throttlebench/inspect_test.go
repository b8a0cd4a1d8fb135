package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/inspect"
)

// inspect on this machine, as root or not: it runs, and the CPUs it reports
// are the kernel's.
func TestInspectThisHost(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("inspect reads /sys/devices/system/cpu, which only Linux has")
	}
	code, stdout, stderr := runCLI("inspect", "--format", "json")
	require.Equal(t, exitOK, code, stderr)
	var r inspect.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &r), stdout)
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	require.NoError(t, err)
	online, err := cpulist.Parse(string(b))
	require.NoError(t, err)
	assert.Equal(t, online, r.CPUs.Online)
	assert.Equal(t, inspect.SchemaVersion, r.SchemaVersion)
	assert.Equal(t, runtime.NumCPU(), r.CPUs.NumCPU)
	assert.Len(t, r.CPUs.Affinity, runtime.NumCPU(), "Go counts the affinity mask")
	assert.NotEmpty(t, r.Kernel.Release)
	require.NotNil(t, r.Machine, "the load was sampled")
	// The window is the sleep between two reads of /proc/stat: at least
	// busyWindow (rounded to whole ms), and longer by however late this
	// process woke, which on a loaded machine has no useful bound.
	assert.GreaterOrEqual(t, r.Machine.WindowMs, float64(busyWindow/time.Millisecond)-1)
	threads := 0
	for _, s := range r.CPUs.Siblings {
		threads += len(s)
	}
	assert.Equal(t, len(online), threads, "every online CPU is a thread of one core")

	code, stdout, stderr = runCLI("inspect")
	require.Equal(t, exitOK, code, stderr)
	for _, section := range []string{"CPUs\n", "cgroup\n", "kernel\n", "Go\n", "here\n", "caveats\n"} {
		assert.Contains(t, stdout, section)
	}
}

// GOMAXPROCS is read as the process starts: Go's own default, or the
// environment's, whatever the command does after.
func TestInspectGOMAXPROCSAtStart(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("inspect reads /sys/devices/system/cpu, which only Linux has")
	}
	run := func(env ...string) inspect.Report {
		cmd := exec.Command(os.Args[0], "inspect", "--format", "json")
		cmd.Env = append(os.Environ(), append(env, asCLI+"=1")...)
		out, err := cmd.Output()
		require.NoError(t, err)
		var r inspect.Report
		require.NoError(t, json.Unmarshal(out, &r), string(out))
		return r
	}
	r := run("GOMAXPROCS=3")
	assert.Equal(t, 3, r.Go.GOMAXPROCSDefault)
	assert.Equal(t, "3", r.Go.GOMAXPROCSEnv)
	assert.Contains(t, strings.Join(r.Caveats, "\n"), "GOMAXPROCS=3 is set in the environment")

	var clean []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOMAXPROCS=") && !strings.HasPrefix(kv, "GODEBUG=") {
			clean = append(clean, kv)
		}
	}
	cmd := exec.Command(os.Args[0], "inspect", "--format", "json")
	cmd.Env = append(clean, asCLI+"=1")
	out, err := cmd.Output()
	require.NoError(t, err)
	r = inspect.Report{}
	require.NoError(t, json.Unmarshal(out, &r))
	// Go ≥ 1.25: the CPUs, lowered to the own cgroup's limit rounded up
	// (at least 2).
	want := r.CPUs.NumCPU
	if len(r.Cgroup.Levels) > 0 && r.Cgroup.Levels[0].CPUs != nil {
		want = min(want, max(2, int(math.Ceil(*r.Cgroup.Levels[0].CPUs))))
	}
	assert.Equal(t, want, r.Go.GOMAXPROCSDefault)
	assert.Empty(t, r.Go.GOMAXPROCSEnv)
}
