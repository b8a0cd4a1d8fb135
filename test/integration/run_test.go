//go:build linux

package integration

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A quota of 0.2 CPUs must slow a single CPU-bound worker about fivefold; we
// ask for at least 3× to stay robust on a busy machine. Against the
// fastest unlimited iteration (the least disturbed), with iterations of
// about 50 ms of CPU (--batch 60), two and a half periods' quota each:
// with --batch 20 (about 17 ms, within one period's 20 ms of quota, so an
// iteration's start in the period decides whether it is throttled at all)
// a host run beside two busy loops gave 2.42× (70.0 ms against an
// unlimited mean of 28.9) and failed. Measured here, slow mean over the
// fastest unlimited iteration: --batch 20 4.16-5.50 quiet, 4.02-4.61
// busy; --batch 60 5.30-5.34 quiet, 4.06-4.26 busy (two runs each).
func TestQuotaThrottles(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	args := []string{"run", "--cgroup", "create", "--parent", parent, "--batch", "60", "--iterations", "3"}

	free := tbJSON(t, args...)
	slow := tbJSON(t, append(args, "--cpus", "0.2")...)

	assert.Equal(t, "created", slow.Cgroup.Mode)
	assert.Equal(t, hier.Version, slow.Cgroup.Version)
	assert.Equal(t, int64(20000), slow.Cgroup.QuotaUs)
	require.NotNil(t, slow.Cgroup.PeriodUs)
	assert.Equal(t, int64(100000), *slow.Cgroup.PeriodUs)
	assert.InDelta(t, 0.2, slow.Cgroup.EffectiveCPUs, 1e-9)
	assert.Equal(t, int64(-1), free.Cgroup.QuotaUs)
	assert.Len(t, slow.DurationsMs, 3)

	require.NotEmpty(t, free.DurationsMs)
	fastest := slices.Min(free.DurationsMs)
	ratio := slow.Stats.MeanMs / fastest
	t.Logf("mean %.1f ms at 0.2 CPUs vs %.1f ms unlimited (fastest; mean %.1f): %.2f×; model ratio %.2f",
		slow.Stats.MeanMs, fastest, free.Stats.MeanMs, ratio, slow.Model.Ratio)
	// A direction, to an order of magnitude (issue 32): about 5× here,
	// 4.06 at worst beside busy loops, where 3× was held.
	assert.GreaterOrEqual(t, ratio, 2.0, "a fifth of a CPU is slower than all of them")
	require.NotNil(t, slow.Throttling.NrThrottled)
	assert.Greater(t, *slow.Throttling.NrThrottled, uint64(0))
	require.NotNil(t, slow.Throttling.ThrottledMs)
	assert.Greater(t, *slow.Throttling.ThrottledMs, 0.0)
	// The unlimited slice has no bandwidth periods: the fraction is undefined.
	require.NotNil(t, free.Throttling.NrThrottled)
	assert.Equal(t, uint64(0), *free.Throttling.NrThrottled)
	// The slices are gone (testParent checks at cleanup too).
	assert.NoDirExists(t, slow.Cgroup.Dir)

	// The slice's usage over the measured iterations: its own counter on
	// v2 (and on v1 where cpuacct shares the cpu hierarchy), the child's
	// CPU clock where cpuacct is mounted apart. Either covers the workers'
	// CPU time; no quota, no utilisation.
	for _, r := range []result{free, slow} {
		require.NotNil(t, r.Usage.CPUMs)
		assert.Positive(t, *r.Usage.CPUMs)
		require.NotNil(t, r.Usage.Source)
		assert.Contains(t, []string{"cgroup", "process"}, *r.Usage.Source)
		if hier.Version == 2 {
			assert.Equal(t, "cgroup", *r.Usage.Source, "every v2 cgroup counts usage_usec")
		}
	}
	assert.Nil(t, free.Usage.QuotaUtilisation)

	// A CPU-bound worker at a tenth of a CPU is throttled in nearly every
	// period after using its whole quota: a utilisation near 1, where the
	// model is exact. Over 20 periods or more the window's edges move it
	// by a period or two at most, 0.1. A tenth, not a half: beside a busy
	// loop on every CPU a thread gets half of one, less with the rest of
	// the suite beside it, and at 0.5 CPU it could no longer use its quota
	// (what the utilisation would then measure is the neighbours, not the
	// quota; 0.67 at 0.2 CPU in one stress run under a VM and a fuzzer
	// too). Measured at 0.5 on our 2-core v1 host (8 runs, quiet): 0.967
	// to 1.025, over 20 or 21 periods; in the test VM 0.970 to 0.997 (3
	// boots).
	spin := tbJSON(t, "run", "--cgroup", "create", "--parent", parent, "--workload", "spin", "--cpus", "0.1",
		"--batch", "8", "--iterations", "3", "--min-time", "2s")
	require.NotNil(t, spin.Throttling.NrPeriods)
	require.NotNil(t, spin.Throttling.NrThrottled)
	require.NotNil(t, spin.Usage.CPUMs)
	require.NotNil(t, spin.Usage.QuotaUtilisation)
	periods, throttled := *spin.Throttling.NrPeriods, *spin.Throttling.NrThrottled
	t.Logf("spin at 0.1 CPU: %.1f ms of CPU (%s), throttled in %d of %d periods, quota utilisation %.3f",
		*spin.Usage.CPUMs, *spin.Usage.Source, throttled, periods, *spin.Usage.QuotaUtilisation)
	require.GreaterOrEqual(t, periods, uint64(15))
	assert.GreaterOrEqual(t, float64(throttled), 0.7*float64(periods), "throttled in most periods")
	assert.InDelta(t, 1.0, *spin.Usage.QuotaUtilisation, 0.1)
	assert.NotContains(t, headlines(spin.Warnings), "throttled below quota")

	// cpu.pressure counts the time the quota held the worker: runnable,
	// not running. The one worker spins throughout and runs about the
	// quota, a tenth of the time (the utilisation above, within 0.1 over
	// at least 2 s), so some pressure covers about 0.9 of the window,
	// less the window's edges, where the child is given its go-ahead and
	// exits (not runnable); other load only adds to it. Measured in the
	// 6.1 guest: 0.834 and 0.841 in two boots (full 0.820, 0.837). At
	// least half: the edges would have to take 0.4 s of a 2 s window.
	if c := checkPressure(t, hier.Version, spin.Contention); c != nil {
		t.Logf("spin at 0.1 CPU: pressure some %.1f ms (%.3f), full %.1f ms (%.3f), throttled %.1f ms, run delay %.1f ms, wait %.1f ms",
			*c.PressureSomeMs, *c.PressureSomeShare, *c.PressureFullMs, *c.PressureFullShare, c.ThrottledMs, c.RunDelayMs, c.WaitMs)
		assert.Positive(t, *c.PressureSomeMs)
		assert.GreaterOrEqual(t, *c.PressureSomeShare, 0.5, "a worker held by a tenth of a CPU is held most of the time")
	}
}

func TestBurstIsWrittenAndReported(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	r := tbJSON(t, "run", "--cgroup", "create", "--parent", parent, "--period", "50ms", "--quota", "10ms", "--burst", "8ms",
		"--batch", "10", "--iterations", "2")
	// burst_us is read back from the kernel's file, not echoed from the flag.
	assert.Equal(t, int64(8000), r.Cgroup.BurstUs)
	assert.Equal(t, int64(10000), r.Cgroup.QuotaUs)
	require.NotNil(t, r.Throttling.NrBursts, "this kernel reports burst counters")
	require.NotNil(t, r.Throttling.BurstMs)
}

func TestCurrentReportsTheEnclosingLimits(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	// Two separate trees: on cgroup v2 a cgroup with children that use the
	// cpu controller may not hold processes itself.
	own := filepath.Join(parent, "own")
	makeCgroup(t, hier, own, 30000, 100000)
	outer := filepath.Join(parent, "outer")
	makeCgroup(t, hier, outer, 30000, 100000)
	leaf := filepath.Join(outer, "leaf")
	makeCgroup(t, hier, leaf, -1, 100000)

	for _, c := range []struct {
		dir       string
		quotaUs   int64
		effective float64
	}{
		{own, 30000, 0.3},
		// The leaf has no quota of its own; its parent's limit is what binds.
		{leaf, -1, 0.3},
	} {
		cmd := exec.Command("sh", "-c", `echo $$ > "$1/cgroup.procs" && shift && exec "$@"`, "sh", c.dir,
			binary, "run", "--cgroup", "current", "--batch", "5", "--iterations", "2", "--format", "json")
		r := runJSON(t, cmd)
		assert.Equal(t, "current", r.Cgroup.Mode)
		assert.Equal(t, hier.Version, r.Cgroup.Version)
		assert.Equal(t, c.dir, r.Cgroup.Dir)
		assert.Equal(t, c.quotaUs, r.Cgroup.QuotaUs)
		assert.InDelta(t, c.effective, r.Cgroup.EffectiveCPUs, 1e-9, "in %s", c.dir)
		// The pressure is the current cgroup's (a container's own, on v2).
		if p := checkPressure(t, hier.Version, r.Contention); p != nil {
			t.Logf("current in %s: pressure some %.1f ms (%.3f), full %.1f ms, throttled %.1f ms", c.dir, *p.PressureSomeMs, *p.PressureSomeShare, *p.PressureFullMs, p.ThrottledMs)
		}
	}
}

func TestParallelRunsDoNotCollide(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = tbJSON(t, "run", "--cgroup", "create", "--parent", parent, "--cpus", "0.5", "--batch", "10", "--iterations", "2")
		}()
	}
	wg.Wait()
	assert.NotEqual(t, results[0].Cgroup.Path, results[1].Cgroup.Path)
	for _, r := range results {
		assert.Equal(t, "created", r.Cgroup.Mode)
		assert.Len(t, r.DurationsMs, 2)
	}
}

// Every invalid input exits 2 with one line naming the flag, and creates
// nothing (testParent fails the test if a slice appears).
func TestInvalidInputCreatesNothing(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--workers", "0"}, "--workers"},
		{[]string{"--cpus", "0.2", "--quota", "20ms"}, "--cpus"},
		{[]string{"--period", "2s"}, "--period"},
		{[]string{"--quota", "20ms", "--burst", "30ms"}, "--burst"},
		{[]string{"--cost", "3"}, "--cost"},
		{[]string{"--parent", "../../x"}, "--parent"},
		{[]string{"--cpuset", "0-"}, "--cpuset"},
		{[]string{"--cpuset", "8191"}, "--cpuset"},
		{[]string{"--cpuset", "0"}, "--cpuset"}, // the parent offers no cpuset of its own
		{[]string{"--one-per-core=maybe"}, "--one-per-core"},
	} {
		o := tb(t, append([]string{"run", "--parent", parent}, c.args...)...)
		assert.Equal(t, 2, o.code, "%v: %s", c.args, o.stderr)
		assert.Equal(t, 1, strings.Count(o.stderr, "\n"), "%v: one line: %q", c.args, o.stderr)
		assert.Contains(t, o.stderr, c.flag)
		assert.Empty(t, o.stdout)
	}
}

// Without the rights to create a slice, create mode fails clearly and auto
// mode measures the current cgroup instead, saying so.
func TestWithoutPrivilege(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	bin := binaryFor(t, 65534)

	asNobody := func(args ...string) outcome {
		cmd := exec.Command(bin, jsonByDefault(args)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		return runCmd(t, cmd)
	}

	o := asNobody("run", "--cgroup", "create", "--parent", parent, "--cpus", "0.5", "--batch", "2", "--iterations", "1")
	assert.Equal(t, 1, o.code, o.stderr)
	assert.Contains(t, o.stderr, "--cgroup current")
	assert.Contains(t, o.stderr, "delegated")

	o = asNobody("run", "--parent", parent, "--batch", "2", "--iterations", "1")
	require.Equal(t, 0, o.code, o.stderr)
	var r result
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r))
	assert.Equal(t, "current", r.Cgroup.Mode)
	assert.Contains(t, r.Warnings.text(), "ran in the current cgroup", "the fallback is said in the warnings")
}
