//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sizeResult is the part of size's JSON result the test looks at.
type sizeResult struct {
	Recommendation *struct {
		CPUs     *float64 `json:"cpus"`
		QuotaUs  *int64   `json:"quota_us"`
		PeriodUs int64    `json:"period_us"`
	} `json:"recommendation"`
	Bracket struct {
		PassCPUs *float64 `json:"pass_cpus"`
		FailCPUs *float64 `json:"fail_cpus"`
	} `json:"bracket"`
	Arms []struct {
		CPUs      *float64     `json:"cpus"`
		Unlimited bool         `json:"unlimited"`
		QuotaUs   *int64       `json:"quota_us"`
		Verdict   string       `json:"verdict"`
		Windows   []sizeWindow `json:"windows"`
	} `json:"arms"`
	Warnings warnings `json:"warnings"`
}

type sizeWindow struct {
	Pass       bool   `json:"pass"`
	Short      string `json:"short"`
	Refused    string `json:"refused"`
	Busy       bool   `json:"busy"`
	Throttling struct {
		NrThrottled *uint64 `json:"nr_throttled"`
	} `json:"throttling"`
}

// One short real search on the built-in open loop, whose answer the CFS
// model knows: 100 requests/s of 5 ms on one worker need 0.5 CPU, and
// below it the queue grows without bound (its achieved rate falls short,
// its p99 grows with the window), so no level under 0.5 may pass, and the
// answer, where there is one, is at or above it. Correctness only: how
// long a level's windows take is not asserted. It leaves nothing behind.
//
// Others' load (a busy loop on every CPU) makes size refuse every window
// by default, as it should: --busy count counts them, and the boosted
// parent's weight gives the workload its CPU beside that load, so that the
// model's answer holds there too: beside a busy loop pinned to each CPU
// of a 2-core host, 30 runs of 30 passed, each with the bracket 0.6 CPUs
// passing and 0.4 failing, 28 windows in 23–25 s (2026-11-28; make
// test-stress STRESS_N=30 STRESS_PKGS=./test/integration
// STRESS_ARGS='-run TestSizeOpenLoopAnswerTheModelKnows' runs it so).
func TestSizeOpenLoopAnswerTheModelKnows(t *testing.T) {
	hier := needRoot(t)
	parent := boostedParent(t, hier)
	dir := t.TempDir()
	tag := newTag(t)
	out := filepath.Join(dir, "size.json")
	o := runCmd(t, taggedCmd(tag, "size", "--cgroup", "create", "--parent", parent, "--slo", "p99<=100ms",
		"--rate", "100", "--arrivals", "fixed", "--work", "5ms", "--workers", "1", "--window", "500ms",
		"--cpus-min", "0.2", "--cpus-max", "1", "--step", "0.2", "--budget", "40s", "--busy", "count", "-o", out))
	require.Equal(t, 0, o.code, o.stderr)
	assertNothingLeft(t, parent, tag, dir, "size.json")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var r sizeResult
	require.NoError(t, json.Unmarshal(data, &r), "%s", data)
	require.NotEmpty(t, r.Arms)
	require.True(t, r.Arms[0].Unlimited)
	require.Nil(t, r.Arms[0].CPUs)
	require.Equal(t, "pass", r.Arms[0].Verdict, "the unlimited arm meets p99<=100ms: %s", data)
	require.Greater(t, len(r.Arms), 1, "levels searched: %s", data)
	for _, a := range r.Arms[1:] {
		require.NotNil(t, a.CPUs)
		require.NotNil(t, a.QuotaUs)
		assert.InDelta(t, *a.CPUs*100_000, float64(*a.QuotaUs), 1, "quota at the 100ms period")
		if *a.CPUs < 0.5 {
			assert.NotEqual(t, "pass", a.Verdict, "%v CPUs cannot serve 0.5 CPU of work: %s", *a.CPUs, data)
			for _, w := range a.Windows {
				assert.Empty(t, w.Refused, "--busy count refuses no window for a busy machine")
				if w.Throttling.NrThrottled != nil {
					assert.Positive(t, *w.Throttling.NrThrottled, "%v CPUs: a window under the quota was throttled", *a.CPUs)
				}
			}
		}
	}
	// A level passes: 1 CPU serves 0.5 CPU of work, and the bisection
	// measures 0.6 first. A search that never passes fails here.
	require.NotNil(t, r.Bracket.PassCPUs, "no level passed: %s", data)
	assert.GreaterOrEqual(t, *r.Bracket.PassCPUs, 0.5, "%s", data)
	require.NotNil(t, r.Recommendation)
	assert.Equal(t, *r.Bracket.PassCPUs, *r.Recommendation.CPUs)
	assert.Equal(t, int64(100_000), r.Recommendation.PeriodUs)
	cpus := func(c *float64) string {
		if c == nil {
			return "none"
		}
		return fmt.Sprint(*c)
	}
	busy, all := 0, 0
	for _, a := range r.Arms {
		for _, w := range a.Windows {
			if all++; w.Busy {
				busy++
			}
		}
	}
	t.Logf("bracket: %s CPUs pass, %s below it do not; %d of %d windows on a busy machine; warnings %q",
		cpus(r.Bracket.PassCPUs), cpus(r.Bracket.FailCPUs), busy, all, r.Warnings)
}

// Ctrl-C during a search leaves nothing: no slice, no process, no output
// file (an interrupted search has no answer to write), and exits 130.
func TestSizeInterruptLeavesNothing(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	dir := t.TempDir()
	tag := newTag(t)
	cmd, stderr := startTagged(t, tag, "size", "--cgroup", "create", "--parent", parent, "--slo", "p99<=100ms",
		"--rate", "100", "--work", "1ms", "--window", "20s", "-o", filepath.Join(dir, "size.json"))
	slice, child := waitForChild(t, parent)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	assert.Equal(t, 130, exitCode(t, cmd), stderr.String())
	assert.Contains(t, stderr.String(), "throttlebench: interrupted by SIGINT; nothing left behind\n")
	assert.False(t, alive(child), "workload child %d survived", child)
	assert.NoDirExists(t, slice)
	assertNothingLeft(t, parent, tag, dir)
}

// Ctrl-C after a window keeps what was measured: -o holds the result so
// far, marked incomplete and undecided, and nothing else is left.
func TestSizeInterruptKeepsWhatWasMeasured(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	dir := t.TempDir()
	tag := newTag(t)
	out := filepath.Join(dir, "size.json")
	cmd, stderr := startTagged(t, tag, "size", "--cgroup", "create", "--parent", parent, "--slo", "p99<=100ms",
		"--rate", "100", "--work", "1ms", "--window", "500ms", "-o", out)
	first, _ := waitForChild(t, parent)
	// The second window's slice: the first window has been measured.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		next, _ := waitForChild(t, parent)
		if next != first {
			break
		}
		require.True(t, time.Now().Before(deadline), "no second window within a minute")
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	assert.Equal(t, 130, exitCode(t, cmd), stderr.String())
	assertNothingLeft(t, parent, tag, dir, "size.json")
	data, err := os.ReadFile(out)
	require.NoError(t, err, stderr.String())
	var r struct {
		Incomplete bool   `json:"incomplete"`
		Stopped    string `json:"stopped"`
		Outcome    string `json:"outcome"`
		Windows    int    `json:"windows"`
		Arms       []struct {
			Unlimited bool              `json:"unlimited"`
			Windows   []json.RawMessage `json:"windows"`
		} `json:"arms"`
	}
	require.NoError(t, json.Unmarshal(data, &r), "%s", data)
	assert.True(t, r.Incomplete)
	assert.Equal(t, "interrupted by SIGINT", r.Stopped)
	assert.Equal(t, "undecided", r.Outcome)
	require.NotEmpty(t, r.Arms)
	assert.True(t, r.Arms[0].Unlimited)
	assert.GreaterOrEqual(t, len(r.Arms[0].Windows), 1)
	assert.Equal(t, len(r.Arms[0].Windows), r.Windows)
}
