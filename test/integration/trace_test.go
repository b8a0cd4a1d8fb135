//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tbreport "github.com/throttlebench/throttlebench/internal/report"
)

// traced is what the --trace tests read of a result.
type traced struct {
	Completed  int `json:"completed"`
	Throttling struct {
		ThrottledMs *float64 `json:"throttled_ms"`
	} `json:"throttling"`
	ThrottleEvents *struct {
		Source     string  `json:"source"`
		Count      int     `json:"count"`
		TotalMs    float64 `json:"total_ms"`
		EventsLost uint64  `json:"events_lost"`
		CPUs       []struct {
			CPU int `json:"cpu"`
		} `json:"cpus"`
		Agreement *struct {
			CounterMs float64  `json:"counter_ms"`
			Ratio     *float64 `json:"ratio"`
		} `json:"agreement"`
	} `json:"throttle_events"`
	ThrottledRequests       *int       `json:"throttled_requests"`
	DurationsMs             []float64  `json:"durations_ms"`
	ThrottledMsPerIteration []float64  `json:"throttled_ms_per_iteration"`
	Breakdown               *breakdown `json:"breakdown"`
	Warnings                warnings   `json:"warnings"`
}

// needTrace skips (in CI: fails) where this kernel cannot trace, saying why.
func needTrace(t *testing.T) {
	t.Helper()
	needRoot(t)
	o := tb(t, "inspect", "--format", "json")
	require.Equal(t, 0, o.code, o.stderr)
	var r struct {
		Tracing struct {
			Available bool   `json:"available"`
			Why       string `json:"why"`
		} `json:"tracing"`
	}
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r))
	if !r.Tracing.Available {
		skipOrFail(t, "throttle events cannot be traced here: "+r.Tracing.Why)
	}
}

// An on-off load above its quota, without burst and with burst equal to
// the quota, traced: the events are there, add up to the counter's
// throttled time to an order of magnitude, and burst leaves fewer of them
// and fewer throttled requests. 18 s is 24 on-phases: the two sides part
// where a queue is left throttled with its threads asleep (counted, not
// traced, on kernels before 6.18) or, on a busy machine, where the group
// waits for its CPU after an unthrottle (traced, not counted). In the VM,
// over 8 on-phases (6 s), the ratio came to -11% to +0.4% (and -9% to +11%
// with the tracer's earlier rule, which also traced a thread's wait behind
// the others); over 18 s, -6.2% to -0.9% in five runs. The on-phases ask
// 1.25 quotas of 0.4 CPU (half a CPU): at --cpus 1 they asked 1.15 CPUs,
// more than the load gets beside a busy loop on every CPU, and there went
// untraced for want of throttling (make test-stress, issue 32).
func TestTraceLatencyOnOffBurst(t *testing.T) {
	needTrace(t)
	hier := needRoot(t)
	o := tb(t, "latency", "--cgroup", "create", "--parent", testParent(t, hier), "--trace", "--cpus", "0.4", "--burst", "0,40ms",
		"--workers", "4", "--rate", "20", "--work", "5ms", "--arrivals", "onoff", "--on", "150ms", "--off", "600ms", "--duration", "18s")
	require.Equal(t, 0, o.code, o.stderr)
	var rs []traced
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &rs))
	require.Len(t, rs, 2)
	for i, r := range rs {
		require.NotNil(t, r.ThrottleEvents, "burst %d: warnings %q", i, r.Warnings)
		require.NotNil(t, r.ThrottledRequests, "burst %d", i)
		t.Logf("burst %s: %d events, %.1f ms traced, counter %v ms, %d of %d requests throttled, warnings %q",
			[]string{"0", "40ms"}[i], r.ThrottleEvents.Count, r.ThrottleEvents.TotalMs, fmtMs(r.Throttling.ThrottledMs),
			*r.ThrottledRequests, r.Completed, r.Warnings)
		assert.Equal(t, "ebpf", r.ThrottleEvents.Source)
		assert.Zero(t, r.ThrottleEvents.EventsLost)
	}
	none, burst := rs[0], rs[1]
	assert.Positive(t, none.ThrottleEvents.Count, "throttled without burst")
	require.NotNil(t, none.ThrottleEvents.Agreement)
	require.NotNil(t, none.ThrottleEvents.Agreement.Ratio)
	// The counter's order of magnitude (issue 32); how closely the trace
	// agrees is internal/tracer's BenchmarkTraceAgreement's figure.
	assert.InDelta(t, 1, *none.ThrottleEvents.Agreement.Ratio, 0.5, "traced %.1f ms against the counter's %.1f ms",
		none.ThrottleEvents.TotalMs, none.ThrottleEvents.Agreement.CounterMs)
	assert.Less(t, burst.ThrottleEvents.Count, none.ThrottleEvents.Count, "burst leaves fewer throttles")
	assert.Less(t, *burst.ThrottledRequests, *none.ThrottledRequests, "and fewer throttled requests")
}

func fmtMs(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.1f", *v)
}

// run --cpus 0.05 --trace: every iteration of 10 hashes (about 11 ms of
// CPU) needs more than two periods' quota (5 ms), so every one has a
// throttled time; the raw events and the timeline are written. A twentieth
// of a CPU, so that the worker uses its quota however busy the machine: at
// 0.2 CPU (50 hashes) an iteration of 302.6 ms beside a busy loop on every
// CPU and the rest of the suite had no throttled time, the worker held
// below its quota by its neighbours, not by the kernel (issue 32).
func TestTraceRunEveryIteration(t *testing.T) {
	needTrace(t)
	hier := needRoot(t)
	dir := t.TempDir()
	events, timeline := filepath.Join(dir, "events.csv"), filepath.Join(dir, "timeline.svg")
	o := tb(t, "run", "--cgroup", "create", "--parent", testParent(t, hier), "--cpus", "0.05", "--batch", "10", "--iterations", "4",
		"--trace", "--trace-out", events, "--plot", timeline)
	require.Equal(t, 0, o.code, o.stderr)
	var r traced
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r))
	require.NotNil(t, r.ThrottleEvents, "warnings %q", r.Warnings)
	require.Len(t, r.DurationsMs, 4, "the iterations asked for")
	require.Len(t, r.ThrottledMsPerIteration, len(r.DurationsMs))
	for i, ms := range r.ThrottledMsPerIteration {
		assert.Positive(t, ms, "iteration %d of %.1f ms", i, r.DurationsMs[i])
		assert.Less(t, ms, r.DurationsMs[i]+1, "iteration %d: its throttled time lies within it", i)
	}
	// Each iteration split by cause over its worker's thread: every one
	// held by the quota, so the slowest too.
	if b := r.Breakdown; assert.NotNil(t, b, "warnings %q", r.Warnings) {
		assert.Equal(t, "workers", b.Threads)
		assert.Equal(t, len(r.DurationsMs), b.Count)
		assert.Zero(t, b.Unknown)
		assert.Positive(t, b.P99Share.Held)
		assert.Positive(t, b.HeldMs.P50)
	}
	data, err := os.ReadFile(events)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	assert.Equal(t, "cpu,tid,start_ms,end_ms,duration_ms", lines[0])
	assert.Greater(t, len(lines), 1)
	svg, err := os.ReadFile(timeline)
	require.NoError(t, err)
	assert.Contains(t, string(svg), "iteration duration (ms)")
}

// Without the right to load BPF programs the run goes on, untraced, and
// says why, once.
func TestTraceWithoutPrivilege(t *testing.T) {
	needRoot(t)
	bin := binaryFor(t, 65534)
	cmd := exec.Command(bin, "run", "--cgroup", "current", "--trace", "--batch", "2", "--iterations", "1", "--format", "json")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	o := runCmd(t, cmd)
	require.Equal(t, 0, o.code, o.stderr)
	var r traced
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r))
	assert.Nil(t, r.ThrottleEvents)
	n := 0
	for _, w := range r.Warnings {
		if w.Kind == tbreport.KindTraceIncomplete && strings.HasPrefix(w.Text, "throttle events not traced: ") {
			n++
		}
	}
	assert.Equal(t, 1, n, "said once: %q", r.Warnings)
}

// --instances --trace: the tracer follows the instances' parent, so every
// instance's slice is traced; the requests are tied to the throttles.
func TestTraceInstances(t *testing.T) {
	needTrace(t)
	hier := needRoot(t)
	o := tb(t, "latency", "--cgroup", "create", "--parent", testParent(t, hier), "--trace", "--cpus", "0.5",
		"--instances", "shared", "--concurrency", "4", "--rate", "40", "--work", "10ms",
		"--arrivals", "onoff", "--on", "200ms", "--off", "300ms", "--duration", "3s")
	require.Equal(t, 0, o.code, o.stderr)
	var r traced
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r))
	require.NotNil(t, r.ThrottleEvents, "warnings %q", r.Warnings)
	assert.Positive(t, r.ThrottleEvents.Count)
	require.NotNil(t, r.ThrottledRequests)
	assert.Positive(t, *r.ThrottledRequests, "requests at twice the quota met throttles")
	t.Logf("instances: %d events, %.1f ms traced, %d of %d requests throttled", r.ThrottleEvents.Count, r.ThrottleEvents.TotalMs, *r.ThrottledRequests, r.Completed)
}

// --instances per-request --trace: six instances, each in a slice with its
// own quota (0.2 CPU) under the traced parent, each working 100 ms at
// once: four or more are throttled together on each CPU, each by its own
// quota. The trace, unioned per CPU and throttled group, agrees with
// their summed counters within 10%, 3% where holds start and end exactly
// (6.18+). With the tracer's end marks kept per CPU (before issue 25) one
// instance's run ended its siblings' holds: -86% to -90% here (131.7 of
// 971.0 ms traced); then +0.4% to +1.2% in three runs on 6.18, quiet,
// and +1.8% to +14.0% beside two busy loops (seven runs, 0.89 to 0.99
// CPUs busy; +14.0% failed this test in a full host run): a thread
// preempted while its queue was marked throttled was held from then,
// though on 6.18+ it is not throttled until it runs and meets the
// throttle. Since holds start there: +0.0% in four runs quiet and eight
// beside the busy loops (0.85 to 1.09 CPUs busy), to 0.1 ms.
//
// Its parent is the weighted one (boostedParent): at the kernel's default
// weight, beside a busy loop and a VM guest, the instances got less CPU
// than their quota and one run was never throttled (no agreement to read).
func TestTracePerRequestInstances(t *testing.T) {
	needTrace(t)
	hier := needRoot(t)
	o := tb(t, "latency", "--cgroup", "create", "--parent", boostedParent(t, hier), "--trace", "--cpus", "0.2",
		"--instances", "per-request", "--arrivals", "once", "--count", "6", "--work", "100ms")
	require.Equal(t, 0, o.code, o.stderr)
	var r traced
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r))
	require.NotNil(t, r.ThrottleEvents, "warnings %q", r.Warnings)
	require.NotNil(t, r.ThrottleEvents.Agreement, "warnings %q", r.Warnings)
	require.NotNil(t, r.ThrottleEvents.Agreement.Ratio)
	t.Logf("per-request: %d events, %.1f ms traced, counters %.1f ms, %d lost, warnings %q", r.ThrottleEvents.Count,
		r.ThrottleEvents.TotalMs, r.ThrottleEvents.Agreement.CounterMs, r.ThrottleEvents.EventsLost, r.Warnings)
	// 6 x 100 ms of work at 0.2 CPU each: 1727 to 2037 ms throttled in
	// all on a quiet machine here, 273 ms where other processes kept 1.07
	// CPUs busy (the instances then get less than their quota).
	assert.Positive(t, r.ThrottleEvents.Agreement.CounterMs, "the instances were throttled")
	// The counters' order of magnitude (issue 32); how closely the trace
	// agrees (+0.0% on 6.18, quiet and busy; +7.3% to +12.5% on the VM's
	// 6.1, where an instance unthrottled waits for the CPU behind its
	// siblings) is a figure for make bench (BenchmarkTraceAgreement's
	// siblings, in internal/tracer).
	ratio := *r.ThrottleEvents.Agreement.Ratio
	assert.True(t, ratio >= 0.5 && ratio <= 1.5, "traced %.1f ms against the counters' %.1f ms: ratio %.3f, want 0.5 to 1.5",
		r.ThrottleEvents.TotalMs, r.ThrottleEvents.Agreement.CounterMs, ratio)
}
