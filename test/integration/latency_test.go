//go:build linux

package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// latencyResult is the part of latency's JSON result the tests look at.
type latencyResult struct {
	SchemaVersion int `json:"schema_version"`
	Config        struct {
		Rate      float64 `json:"rate"`
		Arrivals  string  `json:"arrivals"`
		DurationS float64 `json:"duration_s"`
		Workers   int     `json:"workers"`
	} `json:"config"`
	Cgroup struct {
		Mode          string  `json:"mode"`
		Version       int     `json:"version"`
		Path          string  `json:"path"`
		Dir           string  `json:"dir"`
		PeriodUs      *int64  `json:"period_us"`
		QuotaUs       int64   `json:"quota_us"`
		BurstUs       int64   `json:"burst_us"`
		EffectiveCPUs float64 `json:"effective_cpus"`
	} `json:"cgroup"`
	Offered        int      `json:"offered"`
	Completed      int      `json:"completed"`
	Dropped        int      `json:"dropped"`
	CPUMs          *float64 `json:"cpu_ms"`
	WindowMs       float64  `json:"window_ms"`
	CPUUtilisation *float64 `json:"cpu_utilisation"`
	PeakCPUs100ms  *float64 `json:"peak_cpus_100ms"`
	DispatchLateMs float64  `json:"dispatch_late_ms"`
	LatencyMs      struct {
		P50 float64 `json:"p50"`
		P99 float64 `json:"p99"`
		Max float64 `json:"max"`
	} `json:"latency_ms"`
	Throttling struct {
		NrPeriods   *uint64  `json:"nr_periods"`
		NrThrottled *uint64  `json:"nr_throttled"`
		ThrottledMs *float64 `json:"throttled_ms"`
		NrBursts    *uint64  `json:"nr_bursts"`
		BurstMs     *float64 `json:"burst_ms"`
	} `json:"throttling"`
	Calibration struct {
		IterationsPerMs float64 `json:"iterations_per_ms"`
	} `json:"calibration"`
	Histogram string   `json:"histogram_hdr"`
	Warnings  warnings `json:"warnings"`
}

// incomplete says what makes r less than a whole result, or "".
func (r latencyResult) incomplete() string {
	switch {
	case r.SchemaVersion != 1:
		return fmt.Sprintf("schema_version %d", r.SchemaVersion)
	case r.Completed == 0 || r.Completed+r.Dropped != r.Offered:
		return fmt.Sprintf("%d completed + %d dropped of %d offered", r.Completed, r.Dropped, r.Offered)
	case r.LatencyMs.P99 <= 0 || r.Histogram == "":
		return "no latencies"
	}
	return ""
}

// decodeLatencies decodes latency's JSON array (a list of configurations)
// strictly: the whole text, every element a complete result.
func decodeLatencies(data []byte) ([]latencyResult, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var rs []latencyResult
	if err := dec.Decode(&rs); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("text after the array")
	}
	for i, r := range rs {
		if why := r.incomplete(); why != "" {
			return nil, fmt.Errorf("element %d is not a complete result: %s", i, why)
		}
	}
	return rs, nil
}

func readLatencies(t *testing.T, path string) []latencyResult {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	rs, err := decodeLatencies(data)
	require.NoError(t, err, "%s: %s", path, data)
	return rs
}

// The processes of one test are tagged through their environment, as the
// soak's are: the workload child inherits it, so a scan of /proc finds every
// process a run started, wherever it went.
var latencyTags atomic.Int64

func newTag(t *testing.T) string {
	return fmt.Sprintf("%d-%s-%d", os.Getpid(), sanitize(t.Name()), latencyTags.Add(1))
}

func taggedCmd(tag string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, jsonByDefault(args)...)
	cmd.Env = append(os.Environ(), soakTagVar+"="+tag)
	return cmd
}

// taggedPids lists the live processes that carry tag.
func taggedPids(tag string) []int {
	entries, _ := os.ReadDir("/proc")
	want := []byte(soakTagVar + "=" + tag + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// assertNothingLeft checks what a run that has exited left behind: no
// slice under parent (unless ""), no process carrying tag, and in outDir
// nothing but the files named in keep (no temporary file, no partial
// output).
func assertNothingLeft(t *testing.T, parent, tag, outDir string, keep ...string) {
	t.Helper()
	if parent != "" {
		assert.Empty(t, subdirs(t, parent), "slices left under %s", parent)
	}
	if pids := taggedPids(tag); !assert.Empty(t, pids, "processes left behind") {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL) // ours: tagged by this test
		}
	}
	entries, err := os.ReadDir(outDir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if keep == nil {
		keep = []string{}
	}
	assert.ElementsMatch(t, keep, names, "files in the output directory %s", outDir)
}

// boostedParent is testParent at the top of the cpu hierarchy, with the
// highest CPU weight the kernel takes (v1 cpu.shares 262144, v2 cpu.weight
// 10000; default 1024 and 100). A latency test measures delays: on a small
// machine a build beside it (each of its processes weighing as much as our
// whole slice at the default weight) adds tens of ms to the tail of both
// configurations alike. The weight only decides who runs while both are
// runnable; the quota and the burst, which the test is about, still bind.
func boostedParent(t *testing.T, hier cgroup.Hierarchy) string {
	return topParent(t, hier, true)
}

// topParent is a parent of slices at the top of the cpu hierarchy, as
// boostedParent's, at the highest weight or (boost false) at the kernel's
// default: where the user's own slices would be.
func topParent(t *testing.T, hier cgroup.Hierarchy, boost bool) string {
	t.Helper()
	dir := filepath.Join(hier.MountPoint, fmt.Sprintf("throttlebench-it-%d-%s", os.Getpid(), sanitize(t.Name())))
	file, weight := "cpu.shares", "262144"
	if hier.Version == 2 && boost {
		// cpu.weight exists when the top enables the cpu controller for
		// its children (the slices' creation would enable it anyway).
		writeFile(t, filepath.Join(hier.MountPoint, "cgroup.subtree_control"), "+cpu")
		file, weight = "cpu.weight", "10000"
	}
	require.NoError(t, os.Mkdir(dir, 0o755))
	offerCPU(t, hier, dir)
	t.Cleanup(func() {
		left := subdirs(t, dir)
		for _, d := range left {
			killCgroup(d)
			os.Remove(d)
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("remove the test's parent %s: %v", dir, err)
		}
		if len(left) > 0 {
			t.Errorf("slices left behind under %s: %v", dir, left)
		}
	})
	if boost {
		writeFile(t, filepath.Join(dir, file), weight)
	}
	return dir
}

// The burst A/B: one invocation, --burst 0,100ms, the same arrival
// schedule for both. The workload's average is well below its quota, its
// on-phases above it: what a burst is for (the burst lowers p99; it
// halved it or better in every run measured, below).
//
// The shape is chosen so that the outcome does not depend on where the CFS
// period's boundaries fall, which differs from one slice to the next (the
// period timer starts with the slice) and then stays put, nor on how much
// CPU time a request really costs, which drifts from the calibrated --work:
//
//   - --cpus 0.5 --period 200ms: a quota Q of 100 ms per period; --burst 0
//     or Q, the most the kernel allows.
//   - A cycle of 1.5 s (7.5 periods): 34.5 requests of 5 ms (--rate 23)
//     spread over an on-phase of 300 ms (1.5 periods), 0.575 CPUs while on,
//     1.15 × the quota's rate; 1.725 Q per cycle, 0.115 CPUs on average,
//     0.23 of the quota (cpu_utilisation comes out about 0.28 here, 0.3 to
//     0.45 in the test VM: the window ends with the last on-phase, and a
//     request costs more than its 5 ms, see below).
//   - Without burst: a cycle of 7.5 periods puts successive on-phases half
//     a period apart, so every second one holds a whole period with 1.15 Q
//     of demand against Q: throttled, and the queue that builds up behind
//     the throttled stretch is the tail.
//   - With a burst of Q: after the off-phase (6 idle periods refill it) a
//     period may use 2 Q, the periods an on-phase touches 3 Q in all,
//     against its 1.725 Q, at most 1.15 Q in one: not throttled wherever
//     the boundaries fall.
//   - So the shape holds while the on-phases ask for between 1 and 2
//     quotas' rate. A request runs its loop until its thread's CPU clock
//     has advanced by --work, the clock the quota is charged by (in a VM
//     too, where time the host takes away counts on both), so its demand is
//     1.15 plus the workers' and the runtime's share (3% to 6% here, 20%
//     to 45% in the test VM under TCG); the test checks both.
//   - The 200 ms period doubles the delay a throttled period adds, against
//     a with-burst p99 of the work plus queueing and noise.
//   - --duration 10s: 7 on-phases, 242 requests per configuration; p99 is
//     the third slowest, and without burst the requests queued behind
//     three or four throttled stretches are far more than 1%: p99 is not
//     one outlier.
//
// The shape the issue sketched, --cpus 1 --rate 40 --work 5ms --on 50ms
// --off 450ms, asks for one quota per on-phase in a cycle of exactly five
// periods: whether a slice is throttled at all depends on its alignment (2
// of 4 runs here never were), so it cannot carry an acceptance test.
//
// The parent's weight (boostedParent) keeps a build beside the test from
// adding its delays to both configurations. Measured: p99 with/without
// 0.08 to 0.18 on our 2-core v1 host, 0.13 to 0.25 with two CPU hogs
// beside it, 0.07 to 0.29 in the VM; the test logs each run's figures and
// holds the direction (with burst, lower), where it held 0.5 (issue 32).
var burstShape = []string{"--cpus", "0.5", "--period", "200ms", "--workers", "4", "--rate", "23", "--work", "5ms",
	"--arrivals", "onoff", "--on", "300ms", "--off", "1200ms", "--duration", "10s"}

func TestLatencyBurstLowersP99(t *testing.T) {
	hier := needRoot(t)
	parent := boostedParent(t, hier)
	dir := t.TempDir()
	out := filepath.Join(dir, "latency.json")
	tag := newTag(t)
	args := append([]string{"latency", "--cgroup", "create", "--parent", parent, "--burst", "0,100ms", "-o", out}, burstShape...)
	began := time.Now()
	o := runCmd(t, taggedCmd(tag, args...))
	elapsed := time.Since(began)
	require.Equal(t, 0, o.code, o.stderr)
	assert.Empty(t, o.stdout, "-o: nothing on stdout")
	assertNothingLeft(t, parent, tag, dir, "latency.json")

	// A list writes an array, one element per configuration, in order.
	rs := readLatencies(t, out)
	require.Len(t, rs, 2)
	for i, r := range rs {
		t.Logf("burst %3d ms: p50 %5.1f ms, p99 %6.1f ms, max %6.1f ms; cpu_utilisation %s; nr_throttled %s of %s periods (%s ms); nr_bursts %s (%s ms); dispatch late %.1f ms; %d requests; %s ms CPU",
			r.Cgroup.BurstUs/1000, r.LatencyMs.P50, r.LatencyMs.P99, r.LatencyMs.Max, fmtPtr(r.CPUUtilisation, "%.3f"),
			fmtPtr(r.Throttling.NrThrottled, "%d"), fmtPtr(r.Throttling.NrPeriods, "%d"), fmtPtr(r.Throttling.ThrottledMs, "%.0f"),
			fmtPtr(r.Throttling.NrBursts, "%d"), fmtPtr(r.Throttling.BurstMs, "%.0f"), r.DispatchLateMs, r.Completed, fmtPtr(r.CPUMs, "%.0f"))
		// Every arrival of the schedule is served (the queue holds a
		// cycle's requests): 242 of 242 in each configuration here.
		require.Equal(t, r.Offered, r.Completed, "config %d: every request completes", i)
		require.GreaterOrEqual(t, r.Completed, 200, "config %d: 7 on-phases of 34.5 requests", i)
		// --work is CPU time, measured by the clock the quota is charged
		// by: the slice's CPU per request is the 5 ms and the workers' and
		// the runtime's share, however fast the loop ran. make test holds
		// the design's floor and an order of magnitude (issue 32); the
		// harness's share is a figure for make bench (BenchmarkHarness):
		// 5.14 to 5.17 ms a request on our 2-core v1 host, 5.8 to 7.2 in
		// the VM under TCG, where 5.5 and then 8.5 had been held.
		require.NotNil(t, r.CPUMs, "config %d: cpu_ms", i)
		perRequest := *r.CPUMs / float64(r.Completed)
		assert.GreaterOrEqual(t, perRequest, 5.0, "config %d: a request costs at least its --work", i)
		assert.Less(t, perRequest, 10.0, "config %d: CPU per request of --work 5ms, the harness's share included", i)
	}

	without, with := rs[0], rs[1]
	for i, r := range rs {
		assert.Equal(t, "created", r.Cgroup.Mode, "config %d", i)
		assert.Equal(t, hier.Version, r.Cgroup.Version, "config %d", i)
		assert.Equal(t, parent, filepath.Dir(r.Cgroup.Dir), "config %d: a slice under --parent", i)
		assert.Equal(t, int64(100000), r.Cgroup.QuotaUs, "config %d", i)
		assert.Zero(t, r.Dropped, "config %d: the default queue holds a cycle's requests", i)
		if assert.NotNil(t, r.CPUUtilisation, "config %d: cpu_utilisation", i) {
			assert.LessOrEqual(t, *r.CPUUtilisation, 0.5, "config %d: the average stays at most half the quota", i)
		}
	}
	t.Logf("p99 with burst / without: %.3f (must be below 1); %v for both configurations", with.LatencyMs.P99/without.LatencyMs.P99, elapsed.Round(100*time.Millisecond))
	// burst_us is read back from the kernel's file (cpu.cfs_burst_us on v1,
	// cpu.max.burst on v2).
	assert.Equal(t, int64(0), without.Cgroup.BurstUs)
	assert.Equal(t, int64(100000), with.Cgroup.BurstUs)
	assert.Equal(t, without.Offered, with.Offered, "the same schedule for both")

	if assert.NotNil(t, without.Throttling.NrThrottled) {
		assert.Positive(t, *without.Throttling.NrThrottled, "without burst the on-phases are throttled")
	}
	if with.Throttling.NrBursts != nil {
		assert.Positive(t, *with.Throttling.NrBursts, "with burst the on-phases use it")
	} else {
		t.Log("this kernel reports no nr_bursts")
	}
	// A direction (issue 32): a neighbour's load moves both p99s, and the
	// factor (at most 0.5 was held) is a figure, logged above.
	assert.Less(t, with.LatencyMs.P99, without.LatencyMs.P99,
		"the burst lowers p99: %.1f ms with, %.1f ms without", with.LatencyMs.P99, without.LatencyMs.P99)
}

func fmtPtr[T any](p *T, format string) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf(format, *p)
}

// A short latency run that is measured in a slice for a while: a list
// when two configurations are asked for.
func latencyArgs(parent string, extra ...string) []string {
	return append([]string{"latency", "--cgroup", "create", "--parent", parent, "--cpus", "0.5",
		"--rate", "100", "--work", "1ms", "--workers", "2"}, extra...)
}

// startTagged starts the binary, tagged, and kills it at the end if it is
// still running.
func startTagged(t *testing.T, tag string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := taggedCmd(tag, args...)
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, stderr
}

// servingCPU is the CPU time a latency child of latencyArgs reaches only
// by serving the window's requests. Measured (3 runs each, the child's
// utime+stime every 50 ms): on our 2-core v1 host it holds 10 ms through
// the floor (the first second), 60 to 80 ms after the calibration, then
// gains about 110 ms a second serving (1 ms of work at 100/s), 600 ms at
// about 6 s; in the test VM under TCG the floor costs CPU too, 250 to 290
// ms at the window's start, then about 190 ms a second, 600 ms some 1.7 s
// in. 200 ms, a first choice, came before the window there.
const servingCPU = 600 * time.Millisecond

// Ctrl-C and SIGTERM while a 20 s run serves its requests (its child past
// servingCPU; a fixed second, as before, signalled at the floor's end,
// before any request) end it with 128+signal saying so, with nothing left
// behind and no output; so does --timeout, with run's exit code 1.
func TestLatencySignalsLeaveNothingBehind(t *testing.T) {
	hier := needRoot(t)
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		code int
	}{{"SIGINT", syscall.SIGINT, 130}, {"SIGTERM", syscall.SIGTERM, 143}} {
		t.Run(c.name, func(t *testing.T) {
			parent := testParent(t, hier)
			dir := t.TempDir()
			tag := newTag(t)
			cmd, stderr := startTagged(t, tag, latencyArgs(parent, "--duration", "20s", "-o", filepath.Join(dir, "latency.json"))...)
			slice, child := waitForChild(t, parent)
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				cpu, err := processCPU(child)
				require.NoError(t, err, "the workload ended early: %s", stderr)
				if cpu >= servingCPU {
					t.Logf("signalled with the child at %v of CPU", cpu)
					break
				}
				require.True(t, time.Now().Before(deadline), "the workload used %v of CPU in 15 s, never %v: %s", cpu, servingCPU, stderr)
			}
			require.NoError(t, cmd.Process.Signal(c.sig))
			assert.Equal(t, c.code, exitCode(t, cmd), stderr.String())
			assert.Contains(t, stderr.String(), "throttlebench: interrupted by "+c.name+"; nothing left behind\n")
			assert.False(t, alive(child), "workload child %d survived", child)
			assert.NoDirExists(t, slice)
			assertNothingLeft(t, parent, tag, dir)
		})
	}
	t.Run("timeout", func(t *testing.T) {
		parent := testParent(t, hier)
		dir := t.TempDir()
		tag := newTag(t)
		cmd, stderr := startTagged(t, tag, latencyArgs(parent, "--duration", "20s", "--timeout", "1s", "-o", filepath.Join(dir, "latency.json"))...)
		slice, child := waitForChild(t, parent)
		assert.Equal(t, 1, exitCode(t, cmd), stderr.String())
		assert.Contains(t, stderr.String(), "exceeded --timeout 1s")
		assert.Contains(t, stderr.String(), "nothing left behind")
		assert.False(t, alive(child), "workload child %d survived", child)
		assert.NoDirExists(t, slice)
		assertNothingLeft(t, parent, tag, dir)
	})
}

// -o with a list is rewritten after each configuration: Ctrl-C in the
// second leaves the first one's result, a complete JSON array, and at no
// moment is the file anything else.
func TestLatencyInterruptedListKeepsFinishedConfigs(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	dir := t.TempDir()
	out := filepath.Join(dir, "latency.json")
	tag := newTag(t)
	cmd, stderr := startTagged(t, tag, latencyArgs(parent, "--burst", "0,20ms", "--duration", "2s", "-o", out)...)

	first, _ := waitForChild(t, parent)
	// Watched until the first configuration is saved: whenever the file
	// exists it is whole.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		data, err := os.ReadFile(out)
		if err == nil {
			rs, err := decodeLatencies(data)
			require.NoError(t, err, "the output as the first configuration ended: %s", data)
			require.Len(t, rs, 1)
			break
		}
		require.True(t, time.Now().Before(deadline), "the first configuration never finished: %s", stderr)
	}
	// The second configuration's child in its own slice.
	var second string
	var child int
	for deadline := time.Now().Add(20 * time.Second); second == ""; time.Sleep(5 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the second configuration never started: %s", stderr)
		for _, d := range subdirs(t, parent) {
			if pids := procsIn(d); d != first && len(pids) > 0 {
				second, child = d, pids[0]
			}
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	assert.Equal(t, 130, exitCode(t, cmd), stderr.String())
	assert.Contains(t, stderr.String(), "interrupted by SIGINT; nothing left behind")
	assert.False(t, alive(child))
	assertNothingLeft(t, parent, tag, dir, "latency.json")

	rs := readLatencies(t, out)
	require.Len(t, rs, 1, "the finished configuration only")
	assert.Equal(t, int64(0), rs[0].Cgroup.BurstUs, "the first configuration")
	assert.Equal(t, first, rs[0].Cgroup.Dir)
}

// --cgroup current measures in the process's own cgroup, here the test's:
// no slice is made, and the report says where it ran.
func TestLatencyCurrentMode(t *testing.T) {
	hier := needRoot(t)
	self, err := cgroup.Host{Root: "/"}.Self(hier.Version)
	require.NoError(t, err)
	dir := t.TempDir()
	tag := newTag(t)
	// A slice it made would be named after its PID; one of that name
	// already there is a stale one of an earlier PID's.
	before := map[string]bool{}
	for _, d := range subdirs(t, hier.DefaultParent()) {
		before[d] = true
	}
	cmd := taggedCmd(tag, "latency", "--cgroup", "current", "--rate", "100", "--work", "1ms", "--duration", "1s", "-o", filepath.Join(dir, "latency.json"))
	o := runCmd(t, cmd)
	require.Equal(t, 0, o.code, o.stderr)
	assertNothingLeft(t, "", tag, dir, "latency.json")
	matches, _ := filepath.Glob(filepath.Join(hier.DefaultParent(), fmt.Sprintf("tb-%d-*", cmd.Process.Pid)))
	for _, m := range matches {
		assert.True(t, before[m], "a slice made in current mode: %s", m)
	}

	data, err := os.ReadFile(filepath.Join(dir, "latency.json"))
	require.NoError(t, err)
	var r latencyResult
	require.NoError(t, json.Unmarshal(data, &r), "a single configuration is one object: %s", data)
	assert.Empty(t, r.incomplete())
	assert.Equal(t, "current", r.Cgroup.Mode)
	assert.Equal(t, hier.Version, r.Cgroup.Version)
	assert.Equal(t, self.Path, r.Cgroup.Path)
	assert.Equal(t, self.Dir, r.Cgroup.Dir)
	assert.NotContains(t, r.Warnings.text(), "ran in the current cgroup", "asked for, not a fallback")
	t.Logf("current mode in %s: p99 %.1f ms, cpu_utilisation %s, warnings %q", r.Cgroup.Path, r.LatencyMs.P99, fmtPtr(r.CPUUtilisation, "%.3f"), r.Warnings)
}
