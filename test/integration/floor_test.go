//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floorReport is what the floor's tests read of latency's JSON.
type floorReport struct {
	LatencyMs struct {
		P50  float64 `json:"p50"`
		P99  float64 `json:"p99"`
		P999 float64 `json:"p999"`
	} `json:"latency_ms"`
	FloorMs *struct {
		P50  float64 `json:"p50"`
		P99  float64 `json:"p99"`
		P999 float64 `json:"p999"`
	} `json:"floor_ms"`
	Floor *struct {
		Wakeups    int     `json:"wakeups"`
		Arrivals   string  `json:"arrivals"`
		IntervalMs float64 `json:"interval_ms"`
		MaxMs      float64 `json:"max_ms"`
		TookMs     float64 `json:"took_ms"`
	} `json:"floor"`
	Warnings warnings `json:"warnings"`
}

// Every latency result carries the floor its calibration measured before
// the window, in a slice it created (the workload child's) and in the
// current cgroup (this process's), and says when a percentile is near
// it: with no work every response time is the floor; with 100 ms of it
// none can be.
func TestLatencyReportsTheFloor(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"created, no work", []string{"--cgroup", "create", "--parent", parent, "--work", "0", "--rate", "200", "--arrivals", "fixed"}},
		{"current, no work", []string{"--cgroup", "current", "--work", "0", "--rate", "200"}},
		// 0.8 CPUs; the floor's wake-ups are 5 ms apart at most. 100 ms
		// is more than 3× any floor we have seen: the VM's (TCG) p99.9
		// reached 8 ms, where 20 ms of work came out near it, and then
		// 19.2 ms (p99 9.2) in a clean-clone CI run, where 50 ms did
		// (latency p99.9 53.4 ms, under 3× 19.2).
		{"created, 100 ms of work", []string{"--cgroup", "create", "--parent", parent, "--work", "100ms", "--rate", "8", "--arrivals", "fixed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tb(t, append([]string{"latency", "--duration", "1s"}, tc.args...)...)
			require.Equal(t, 0, o.code, o.stderr)
			var r floorReport
			require.NoError(t, json.Unmarshal([]byte(o.stdout), &r), o.stdout)
			require.NotNil(t, r.FloorMs, "floor_ms")
			require.NotNil(t, r.Floor, "floor")
			f := r.FloorMs
			assert.True(t, 0 < f.P50 && f.P50 <= f.P99 && f.P99 <= f.P999 && f.P999 <= r.Floor.MaxMs, "%+v, max %v", *f, r.Floor.MaxMs)
			assert.Equal(t, 200, r.Floor.Wakeups)
			assert.InDelta(t, 5, r.Floor.IntervalMs, 1e-9, "the run's gap at 200 requests/s, 5 ms at most")
			if strings.Contains(tc.name, "current") {
				assert.Equal(t, "poisson", r.Floor.Arrivals, "as the run's")
			} else {
				assert.Equal(t, "fixed", r.Floor.Arrivals)
				assert.GreaterOrEqual(t, r.Floor.TookMs, 199*5.0, "200 wake-ups 5 ms apart")
			}

			near := r.LatencyMs.P50 < 3*f.P50 || r.LatencyMs.P99 < 3*f.P99 || r.LatencyMs.P999 < 3*f.P999
			assert.Equal(t, near, strings.Contains(r.Warnings.text(), "near the floor"), "latency_ms %+v, floor_ms %+v: %q", r.LatencyMs, *f, r.Warnings)
			if strings.Contains(tc.name, "100 ms") {
				assert.False(t, near, "a response time of 100 ms of work is not near a floor of %+v ms", *f)
			}
			t.Logf("floor_ms %+v (took %.0f ms); latency_ms %+v", *f, r.Floor.TookMs, r.LatencyMs)
		})
	}
}

// A run on instances measures its floor too, before the run, on an
// instance of its own whose slice is gone with the run's: a primer that
// waits for the instance's cold start, then 200 requests that need no
// work, spaced as the run's arrivals (at 20 requests/s, the longest gap:
// 5 ms). None of them waits for the cold start, however long it takes
// (about a second in the VM under TCG, which once left 1 request of 200
// before the primer), so all count. Each is timed from when the instance
// was free to take it. 30 runs in the v2 guest beside a busy loop on each
// host CPU (-test.count 30, issue 45): all 200 counted every time, p50
// 1.8-4.8 ms (mean 3.3, sd 0.7) against the bound of 20 ms, p99 up to
// 55 ms; before the floor left out its own queue, one such run's p50 was
// 59 ms.
func TestInstancesReportTheFloor(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	dir := t.TempDir()
	tag := newTag(t)
	o := runCmd(t, taggedCmd(tag, "latency", "--cgroup", "create", "--parent", parent, "--cpus", "0.5",
		"--instances", "shared", "--concurrency", "2", "--arrivals", "fixed", "--rate", "20", "--duration", "1s",
		"--work", "20ms", "-o", filepath.Join(dir, "r.json")))
	require.Equal(t, 0, o.code, o.stderr)
	assertNothingLeft(t, parent, tag, dir, "r.json")
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	var r floorReport
	require.NoError(t, json.Unmarshal(data, &r))
	require.NotNil(t, r.FloorMs, "floor_ms; warnings %q", r.Warnings)
	require.NotNil(t, r.Floor, "floor")
	f := r.FloorMs
	assert.True(t, 0 < f.P50 && f.P50 <= f.P99 && f.P99 <= f.P999 && f.P999 <= r.Floor.MaxMs, "%+v, max %v", *f, r.Floor.MaxMs)
	assert.Equal(t, "fixed", r.Floor.Arrivals)
	assert.InDelta(t, 5, r.Floor.IntervalMs, 1e-9)
	assert.Equal(t, 200, r.Floor.Wakeups, "every one: the first found the instance ready")
	assert.GreaterOrEqual(t, r.Floor.TookMs, 199*5.0, "200 requests 5 ms apart")
	assert.Less(t, f.P50, 20.0, "a request that needs no work comes back well within a request of 20 ms")
	near := r.LatencyMs.P50 < 3*f.P50 || r.LatencyMs.P99 < 3*f.P99 || r.LatencyMs.P999 < 3*f.P999
	assert.Equal(t, near, strings.Contains(r.Warnings.text(), "near the floor"), "latency_ms %+v, floor_ms %+v: %q", r.LatencyMs, *f, r.Warnings)
	t.Logf("instances' floor_ms %+v (%d requests, took %.0f ms); latency_ms %+v", *f, r.Floor.Wakeups, r.Floor.TookMs, r.LatencyMs)
}
