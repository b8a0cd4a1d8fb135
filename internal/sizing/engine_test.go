package sizing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/sizing"
)

// resolve is size's flags resolved as the command resolves them (o its
// own, params the shared ones by name), where they must resolve: no
// cobra, no kernel.
func resolve(t *testing.T, o options.Size, params map[string]string, args ...string) sizing.Plan {
	t.Helper()
	f := options.NewShared()
	f.Mode, f.Version, f.Driver, f.Format = "auto", "auto", "cgroupfs", "json"
	for k, v := range params {
		f.Values[k] = &v
	}
	o.Run = f
	if o.Step == "" {
		o.Step = "0.05"
	}
	if o.Confidence == 0 {
		o.Confidence = size.DefaultConfidence
	}
	if o.Busy == "" {
		o.Busy = "refuse"
	}
	changed := func(name string) bool { _, ok := params[name]; return ok }
	dash := -1
	if len(args) > 0 {
		dash = 0
	}
	_, p, err := o.Resolve(context.Background(), options.Given{Changed: changed, Value: f.Value}, args, dash, io.Discard)
	require.NoError(t, err)
	return p
}

// fake is a runner of windows: figure gives a window's figure (ms) at cpus
// (+Inf unlimited); it records each window's limits.
type fake struct {
	mu     sync.Mutex
	limits []bandwidth.Limits
	figure func(cpus float64) float64
	// open: the open loop's results; else the closed loop's.
	open bool
	// usedCPUs is the unlimited arm's usage, in CPUs; intervals, when
	// set, its use in each 100 ms of a window (else usedCPUs in each).
	usedCPUs  float64
	intervals []float64
	// floorP99, when set, is the harness's floor a window that measures
	// it reports (the unlimited arm's).
	floorP99 float64
	// edit, when set, changes a result before it is returned.
	edit func(cpus float64, m *sizing.Measured)
	// block, when set, makes a limited window wait for ctx.
	block func(ctx context.Context)
}

func cpusOf(l bandwidth.Limits) float64 {
	if l.Quota == bandwidth.Unlimited {
		return math.Inf(1)
	}
	return l.CPUs()
}

func (f *fake) window(ctx context.Context, o plan.Options) (sizing.Measured, error) {
	f.mu.Lock()
	f.limits = append(f.limits, o.Limits)
	f.mu.Unlock()
	cpus := cpusOf(o.Limits)
	if f.block != nil && !math.IsInf(cpus, 1) {
		f.block(ctx)
		if ctx.Err() != nil {
			return sizing.Measured{}, ctx.Err()
		}
	}
	fig := f.figure(cpus)
	cpu := 500 * f.usedCPUs
	if !f.open {
		cpu = 2 * fig * f.usedCPUs // its two iterations' span
	}
	var m sizing.Measured
	if f.open {
		m.Latency = &report.Latency{OfferedRPS: 100, AchievedRPS: 100, Offered: 200, Completed: 200, CPUMs: &cpu, WindowMs: 500,
			LatencyMs: report.LatencyMs{P50: fig / 2, P90: fig / 1.5, P99: fig, P999: fig}, Host: report.Host{Kernel: "6.18"}}
	} else {
		m.Run = &report.Report{DurationsMs: []float64{fig, fig}, Stats: report.Stats{N: 2, MeanMs: fig, P50Ms: fig, P90Ms: fig, P99Ms: fig}, Usage: report.Usage{CPUMs: &cpu}}
	}
	if f.floorP99 > 0 && m.Latency != nil && !o.Open.NoFloor {
		m.Latency.FloorMs = &report.FloorMs{P50: f.floorP99 / 2, P99: f.floorP99, P999: 2 * f.floorP99}
	}
	in100ms := f.intervals
	if in100ms == nil {
		in100ms = []float64{f.usedCPUs, f.usedCPUs, f.usedCPUs, f.usedCPUs, f.usedCPUs}
	}
	if m.Latency != nil {
		m.Latency.CPUs100ms = in100ms
	} else {
		m.Run.CPUs100ms = in100ms
	}
	if f.edit != nil {
		f.edit(cpus, &m)
	}
	return m, ctx.Err()
}

// A level's p99 is 10 ms from 0.5 CPUs up and 200 ms below: the answer is
// the grid's 0.6, bracketed by 0.4, and every window ran at its level's
// quota at --period.
func TestEngineFindsTheThreshold(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2"}, map[string]string{"rate": "100", "period": "50ms"})
	f := &fake{open: true, usedCPUs: 0.5, figure: func(c float64) float64 {
		if c >= 0.5 {
			return 10
		}
		return 200
	}}
	r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	require.NotNil(t, r.Recommendation)
	assert.InDelta(t, 0.6, *r.Recommendation.CPUs, 1e-9)
	assert.Equal(t, int64(30_000), *r.Recommendation.QuotaUs)
	assert.Equal(t, int64(50_000), r.Recommendation.PeriodUs)
	assert.Equal(t, "resources.limits.cpu: 600m", r.Recommendation.Kubernetes)
	assert.InDelta(t, 0.4, *r.Bracket.FailCPUs, 1e-9)
	require.NotEmpty(t, r.Arms)
	assert.True(t, r.Arms[0].Unlimited)
	assert.Nil(t, r.Arms[0].CPUs)
	assert.Equal(t, size.Pass, r.Arms[0].Verdict)
	assert.Equal(t, "6.18", r.Kernel)
	n := 0
	for _, a := range r.Arms {
		n += len(a.Windows)
	}
	assert.Equal(t, n, r.Windows)
	require.Len(t, f.limits, n, "one run per window")
	for _, l := range f.limits {
		assert.Equal(t, 50*time.Millisecond, l.Period)
	}
	for _, a := range r.Arms[1:] {
		assert.Equal(t, *a.CPUs >= 0.5, a.Verdict == size.Pass, "%v CPUs: %s", *a.CPUs, a.Verdict)
		if a.Verdict == size.Pass { // 6 windows of 10 ms: the median's interval holds
			require.NotNil(t, a.FigureMsCI95)
			assert.Equal(t, [2]float64{10, 10}, *a.FigureMsCI95)
		} else { // 2 windows: too few for an interval
			assert.Nil(t, a.FigureMsCI95)
		}
	}
}

// The contract's keys, as the issue lists them.
func TestResultKeys(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2"}, map[string]string{"rate": "100"})
	f := &fake{open: true, usedCPUs: 0.5, figure: func(c float64) float64 { return 10 + 1000*math.Max(0, 0.5-c) }}
	r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, sizing.Write(&buf, r, "json", 0))
	var m map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &m))
	rec := m["recommendation"].(map[string]any)
	for _, k := range []string{"cpus", "quota_us", "period_us", "burst_us"} {
		assert.Contains(t, rec, k)
	}
	br := m["bracket"].(map[string]any)
	assert.Contains(t, br, "pass_cpus")
	assert.Contains(t, br, "fail_cpus")
	arms := m["arms"].([]any)
	unl := arms[0].(map[string]any)
	assert.Nil(t, unl["cpus"])
	assert.Equal(t, true, unl["unlimited"])
	for _, a := range arms {
		for _, k := range []string{"cpus", "burst_us", "verdict", "confidence", "windows"} {
			assert.Contains(t, a, k)
		}
	}
	assert.Contains(t, m, "usage_rules")
	for _, u := range m["usage_rules"].([]any) {
		for _, k := range []string{"name", "cpus", "verdict"} {
			assert.Contains(t, u, k)
		}
	}
	assert.Contains(t, m, "warnings")
	buf.Reset()
	require.NoError(t, sizing.Write(&buf, r, "text", 0))
	assert.Contains(t, buf.String(), "resources.limits.cpu: 600m, docker run --cpus 0.6")
	assert.Contains(t, buf.String(), "unlimited")
}

// A relative SLO on the closed loop, with the default range from the
// unlimited arm's usage: work that needs 0.5 CPU takes 0.5/cpus times as
// long below it, so mean<=1.2x needs 0.5/1.2 CPUs, and the answer is the
// grid's first level at or above that.
func TestEngineClosedLoopDefaultRange(t *testing.T) {
	p := resolve(t, options.Size{SLO: "mean<=1.2x"}, map[string]string{"workload": "spin"})
	need := 0.5 / 1.2
	f := &fake{usedCPUs: 0.5, figure: func(c float64) float64 { return 100 * math.Max(1, 0.5/c) }}
	r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	require.NotNil(t, r.Range)
	assert.Less(t, r.Range.MinCPUs, need)
	require.NotNil(t, r.Bracket.PassCPUs)
	assert.GreaterOrEqual(t, *r.Bracket.PassCPUs, need)
	require.NotNil(t, r.Bracket.FailCPUs)
	assert.Less(t, *r.Bracket.FailCPUs, need)
	assert.InDelta(t, 100, *r.UnlimitedMs, 1e-9)
	assert.InDelta(t, 120, *r.BoundMs, 1e-9)
	assert.Equal(t, "closed", r.Loop)
	assert.Equal(t, "5 iterations", r.Window)
}

// A busy machine refuses a window (no verdict); a short rate fails one
// whatever its figure; an unlimited arm that fails searches nothing.
func TestEngineGuards(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2"}, map[string]string{"rate": "100"})
	busy := &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 10 }, edit: func(c float64, m *sizing.Measured) {
		if c < 0.7 {
			m.Latency.Contention = waitedFortyPercent()
		}
	}}
	r, err := sizing.Engine{Window: busy.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	for _, a := range r.Arms[1:] {
		if *a.CPUs < 0.7 {
			assert.Equal(t, len(a.Windows), a.Refused, "%v CPUs", *a.CPUs)
			assert.NotEqual(t, size.Pass, a.Verdict)
		}
	}
	assert.Equal(t, report.KindWindowsRefused, r.Warnings[len(r.Warnings)-1].Kind)
	assert.Contains(t, r.Warnings[len(r.Warnings)-1].Text, "waited for CPUs others held (a median 40%")

	short := &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 10 }, edit: func(c float64, m *sizing.Measured) {
		if c < 0.5 {
			m.Latency.AchievedRPS, m.Latency.Dropped = 60, 80
		}
	}}
	r, err = sizing.Engine{Window: short.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	assert.InDelta(t, 0.6, *r.Bracket.PassCPUs, 1e-9)
	for _, a := range r.Arms[1:] {
		if *a.CPUs < 0.5 {
			assert.Equal(t, size.Fail, a.Verdict)
			assert.Contains(t, a.Windows[0].Short, "achieved 60 of 100")
		}
	}

	never := &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 80 }}
	r, err = sizing.Engine{Window: never.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	assert.Nil(t, r.Recommendation)
	assert.Len(t, r.Arms, 1)
	assert.Nil(t, r.Range)
	assert.Equal(t, size.Fail, r.Arms[0].Verdict)
	assert.Equal(t, sizing.OutcomeNoLimit, r.Outcome)
	assert.Len(t, never.limits, failsAfter(p.Test), "only the unlimited arm ran, until its test failed")
	assert.Contains(t, r.Why, "the unlimited arm fails p99<=50ms (0 of 2 counted windows met it)")
	assert.Contains(t, r.Why, "never went above 0.50 CPUs in any 100 ms while it failed: it was not short of CPU", "half a CPU of two used: more cannot help")

	// Failing while using one CPU whole: serial work.
	serial := &fake{open: true, usedCPUs: 1, figure: func(float64) float64 { return 80 }}
	r, err = sizing.Engine{Window: serial.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	assert.Contains(t, r.Why, "never went above 1.00 CPUs in any 100 ms while it failed: the work is serial")

	// Failing while using more than one CPU: not serial, said nothing of.
	parallel := &fake{open: true, usedCPUs: 1.6, figure: func(float64) float64 { return 80 }}
	r, err = sizing.Engine{Window: parallel.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, sizing.OutcomeNoLimit, r.Outcome)
	assert.NotContains(t, r.Why, "serial")
}

// needs is a plant whose p99 is 10 ms from cpus on (the unlimited arm
// too), 200 ms below.
func needs(cpus float64) func(float64) float64 {
	return func(c float64) float64 {
		if c >= cpus {
			return 10
		}
		return 200
	}
}

// failsAfter is the fewest windows, all failing, in which a test fails.
func failsAfter(s size.Sequential) int {
	n := 1
	for s.Decide(0, n) != size.Fail {
		n++
	}
	return n
}

// waitedFortyPercent is a window's contention where the work waited 40% of its
// runnable time for CPUs others held.
func waitedFortyPercent() *report.Contention {
	return &report.Contention{Threads: 3, RunDelayMs: 200, OnCPUMs: 300, WaitMs: 200, WaitShare: 0.4, Contended: true}
}

// --budget ends the search with the bracket so far and no error; a cancel
// (Ctrl-C) returns its error; a budget spent in the unlimited arm says so.
func TestEngineBudgetAndCancel(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2", Budget: 200 * time.Millisecond}, map[string]string{"rate": "100"})
	f := &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 10 }, block: func(ctx context.Context) { <-ctx.Done() }}
	r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	assert.True(t, r.Incomplete)
	assert.NotEmpty(t, r.Stopped)

	ctx, cancel := context.WithCancel(context.Background())
	f = &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 10 }, block: func(context.Context) { cancel() }}
	_, err = sizing.Engine{Window: f.window, NumCPU: 2}.Run(ctx, p)
	assert.ErrorIs(t, err, context.Canceled)

	p.Budget = time.Nanosecond
	time.Sleep(time.Millisecond)
	f = &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 10 }}
	r, err = sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, sizing.OutcomeUndecided, r.Outcome)
	assert.Contains(t, r.Why, "--budget 1ns ran out while the unlimited arm was measured: give a longer one")
	assert.Nil(t, r.Recommendation)
}

// A cancel keeps what was measured, marked incomplete; --serve's server
// exiting ends the search at once, with how it exited.
func TestEngineKeepsWhatWasMeasured(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2"}, map[string]string{"rate": "100"})
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	f := &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 10 }, edit: func(c float64, _ *sizing.Measured) {
		if !math.IsInf(c, 1) {
			if n++; n == 3 {
				cancel()
			}
		}
	}}
	r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(ctx, p)
	assert.ErrorIs(t, err, context.Canceled)
	assert.True(t, r.Incomplete)
	assert.Equal(t, sizing.OutcomeUndecided, r.Outcome)
	assert.GreaterOrEqual(t, len(r.Arms), 2, "the unlimited arm and the level measured")
	assert.Equal(t, p.Test.MinWindows(), len(r.Arms[0].Windows))

	exits := &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 10 }, edit: func(c float64, m *sizing.Measured) {
		if c < 1 {
			m.Latency.TargetResult = &report.TargetResult{ServerExited: "exit status 3: bind: address in use"}
		}
	}}
	r, err = sizing.Engine{Window: exits.window, NumCPU: 2}.Run(context.Background(), p)
	var se *sizing.ServerExitedError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, r.Stopped, "the server exited: exit status 3")
	assert.Len(t, exits.limits, p.Test.MinWindows()+1, "the unlimited arm, then one window")
}

// The unlimited arm measures until it has the windows a level needs to
// pass, refused ones not counting; all refused, it stops at a level's cap
// and searches nothing.
func TestUnlimitedArmReplacesRefusedWindows(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2"}, map[string]string{"rate": "100"})
	n := 0
	f := &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 10 }, edit: func(c float64, m *sizing.Measured) {
		if math.IsInf(c, 1) {
			if n++; n <= 2 {
				m.Latency.Contention = waitedFortyPercent()
			}
		}
	}}
	r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	unl := r.Arms[0]
	assert.Equal(t, size.Pass, unl.Verdict)
	assert.Equal(t, 2, unl.Refused)
	assert.Len(t, unl.Windows, p.Test.MinWindows()+2)

	busy := &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 10 }, edit: func(_ float64, m *sizing.Measured) {
		m.Latency.Contention = waitedFortyPercent()
	}}
	r, err = sizing.Engine{Window: busy.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	assert.Len(t, r.Arms, 1)
	assert.Len(t, r.Arms[0].Windows, p.Test.LevelWindows)
	assert.Contains(t, r.Why, "undecided on p99<=50ms after 20 windows (0 of 0 counted windows met it, 20 refused (contended")
	assert.Contains(t, r.Why, "20 of its windows waited a median 40% of their runnable time for CPUs others held")
	assert.Contains(t, r.Warnings[len(r.Warnings)-1].Text, "--busy count")
	assert.Equal(t, sizing.OutcomeUndecided, r.Outcome)
	assert.Nil(t, r.Recommendation)
}

// --busy count counts a window on a busy machine, marked busy: on a
// machine never quiet the search still answers, and says which way the
// competition leans.
func TestBusyCount(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2", Busy: "count"}, map[string]string{"rate": "100"})
	assert.True(t, p.CountBusy)
	f := &fake{open: true, usedCPUs: 0.5, figure: func(c float64) float64 {
		if c >= 0.6 {
			return 10
		}
		return 200
	}, edit: func(_ float64, m *sizing.Measured) {
		m.Latency.Contention = waitedFortyPercent()
	}}
	r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	require.NotNil(t, r.Recommendation)
	assert.InDelta(t, 0.6, *r.Recommendation.CPUs, 1e-9)
	for _, a := range r.Arms {
		assert.Zero(t, a.Refused)
		for _, w := range a.Windows {
			assert.True(t, w.Busy)
			assert.Empty(t, w.Refused)
		}
	}
	assert.Equal(t, report.KindBusyMachine, r.Warnings[len(r.Warnings)-1].Kind)
	assert.Contains(t, r.Warnings[len(r.Warnings)-1].Text, fmt.Sprintf("%d of %d windows were contended (the work waited for CPUs others held) and were counted", r.Windows, r.Windows))
	data, err := json.Marshal(r.Arms[0].Windows[0])
	require.NoError(t, err)
	assert.Contains(t, string(data), `"busy":true`)
}

// Each usage rule's limit is measured beside the search, from the
// unlimited arm's 100 ms trace: one interval in five at 1 CPU, the rest at
// 0.2, where the target needs 0.7. sample's rule sets the peak, 1 CPU, and
// passes; VPA's p90 of 300 ms windows (its minute, shortened so that there
// are ten) × 1.15 averages the bursts away, about 0.54, and fails; krr
// needs 750 s of usage (null).
func TestUsageRulesMeasured(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2", Window: "500ms"}, map[string]string{"rate": "100"})
	f := &fake{open: true, usedCPUs: 0.36, intervals: []float64{1, 0.2, 0.2, 0.2, 0.2}, figure: func(c float64) float64 {
		if c >= 0.7 {
			return 10
		}
		return 200
	}}
	r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	require.Len(t, r.UsageRules, 3)
	byName := map[string]sizing.Rule{}
	for _, u := range r.UsageRules {
		byName[u.Name] = u
	}
	s := byName["sample"]
	require.NotNil(t, s.CPUs)
	assert.InDelta(t, 1, *s.CPUs, 1e-6)
	require.NotNil(t, s.Verdict)
	assert.Equal(t, size.Pass, *s.Verdict)
	v := byName["vpa"]
	require.NotNil(t, v.CPUs, v.Note)
	assert.Less(t, *v.CPUs, 0.7)
	assert.Greater(t, *v.CPUs, 0.2*1.15)
	assert.Contains(t, v.Note, "300ms")
	require.NotNil(t, v.Verdict)
	assert.Equal(t, size.Fail, *v.Verdict)
	assert.Nil(t, byName["krr"].CPUs)
	assert.Nil(t, byName["krr"].Verdict)
	rules := map[string]sizing.Arm{}
	for _, a := range r.Arms {
		if a.Rule != "" {
			rules[a.Rule] = a
		}
	}
	assert.Len(t, rules, 2, "VPA's and sample's limits are no level of the search's bracket")
	require.Contains(t, rules, "vpa")
	assert.InDelta(t, *v.CPUs, *rules["vpa"].CPUs, 1e-5)
	assert.InDelta(t, *v.CPUs*100_000, float64(*rules["vpa"].QuotaUs), 0.5)
	n := 0
	for _, a := range r.Arms {
		n += len(a.Windows)
	}
	assert.Equal(t, n, r.Windows)
	assert.Len(t, f.limits, n)
	var buf bytes.Buffer
	require.NoError(t, sizing.Write(&buf, r, "text", 0))
	assert.Contains(t, buf.String(), " (vpa)")
	// At a width, the prose wraps (the table's rows are as wide as they are).
	buf.Reset()
	require.NoError(t, sizing.Write(&buf, r, "text", 60))
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(line, "grid:") || strings.HasPrefix(line, "recommendation:") || strings.HasPrefix(line, "warning:") {
			assert.LessOrEqual(t, utf8.RuneCountInString(line), 60, line)
		}
	}
	assert.Contains(t, buf.String(), "\n  ", "a continuation indented")
}

// --burst searches each burst: here a burst of 20ms lets 0.4 CPUs pass
// where without one 0.6 is needed; the recommendation is the smaller
// quota, with its burst, and each burst's bracket is a pair.
func TestBurstPairs(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2"}, map[string]string{"rate": "100", "burst": "20ms,0"})
	assert.Equal(t, []time.Duration{0, 20 * time.Millisecond}, p.Bursts)
	var mu sync.Mutex
	bursts := map[time.Duration]int{}
	f := &fake{open: true, usedCPUs: 0.5, figure: func(float64) float64 { return 0 }}
	window := func(ctx context.Context, o plan.Options) (sizing.Measured, error) {
		c, b := cpusOf(o.Limits), o.Limits.Burst
		mu.Lock()
		bursts[b]++
		mu.Unlock()
		f.figure = func(float64) float64 {
			if c >= 0.5 || b > 0 && c >= 0.3 {
				return 10
			}
			return 200
		}
		return f.window(ctx, o)
	}
	r, err := sizing.Engine{Window: window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	require.Len(t, r.Pairs, 2)
	assert.InDelta(t, 0.6, *r.Pairs[0].PassCPUs, 1e-9)
	assert.Equal(t, int64(20_000), r.Pairs[1].BurstUs)
	assert.InDelta(t, 0.4, *r.Pairs[1].PassCPUs, 1e-9)
	assert.InDelta(t, 0.2, *r.Pairs[1].FailCPUs, 1e-9)
	assert.InDelta(t, 0.4, *r.Recommendation.CPUs, 1e-9)
	assert.Equal(t, int64(20_000), r.Recommendation.BurstUs)
	assert.InDelta(t, 0.4, *r.Bracket.PassCPUs, 1e-9)
	assert.Positive(t, bursts[20*time.Millisecond])
	for _, a := range r.Arms {
		if a.Rule != "" || a.Unlimited {
			assert.Zero(t, a.BurstUs)
		}
	}
	var buf bytes.Buffer
	require.NoError(t, sizing.Write(&buf, r, "text", 0))
	assert.Contains(t, buf.String(), "burst 20ms")

	// A burst above the low levels' quota searches from the first level
	// that holds it, and says so.
	p.Bursts = []time.Duration{50 * time.Millisecond}
	r, err = sizing.Engine{Window: window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	for _, a := range r.Arms {
		if a.BurstUs > 0 {
			assert.GreaterOrEqual(t, *a.QuotaUs, a.BurstUs)
		}
	}
	assert.Contains(t, strings.Join(report.Texts(r.Warnings), "\n"), "the grid's 2 lowest levels hold less quota than the burst")
}

// The harness's floor is measured in the unlimited arm's windows only: a
// level's and a rule's skip it (the same at every limit, a second each).
func TestFloorInTheUnlimitedArmOnly(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms"}, map[string]string{"rate": "100"})
	o, err := p.Options(math.Inf(1), 0)
	require.NoError(t, err)
	assert.False(t, o.Open.NoFloor)
	o, err = p.Options(0.5, 0)
	require.NoError(t, err)
	assert.True(t, o.Open.NoFloor)
}

// The harness's floor comes from the unlimited arm's windows, at the SLO's
// percentile; a bound within 3× of it is warned of, one well above it is
// not.
func TestFloorReported(t *testing.T) {
	for _, c := range []struct {
		slo   string
		floor float64
		want  float64
		warn  bool
	}{{"p99<=50ms", 20, 20, true}, {"p99<=50ms", 1, 1, false}, {"p50<=50ms", 20, 10, false}, {"p99.9<=50ms", 10, 20, true}} {
		p := resolve(t, options.Size{SLO: c.slo, CPUsMin: "0.2", CPUsMax: "1", Step: "0.2"}, map[string]string{"rate": "100"})
		f := &fake{open: true, usedCPUs: 0.5, floorP99: c.floor, figure: func(float64) float64 { return 1 }}
		r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
		require.NoError(t, err, c.slo)
		require.NotNil(t, r.FloorMs, c.slo)
		assert.Equal(t, c.want, *r.FloorMs, c.slo)
		warned := strings.Contains(strings.Join(report.Texts(r.Warnings), "\n"), "the harness's own floor")
		assert.Equal(t, c.warn, warned, "%s: %q", c.slo, r.Warnings)
	}
}

// A wait under the refusal's share (a nice-19 loop on every CPU) is
// counted, and said: the search answers, and a warning gives the wait.
func TestLesserWaitIsCountedAndSaid(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2"}, map[string]string{"rate": "100"})
	f := &fake{open: true, usedCPUs: 0.5, figure: needs(0.6), edit: func(_ float64, m *sizing.Measured) {
		m.Latency.Contention = &report.Contention{WaitMs: 400, WaitShare: 0.28, Contended: true}
	}}
	r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	require.NotNil(t, r.Recommendation)
	assert.InDelta(t, 0.6, *r.Recommendation.CPUs, 1e-9)
	for _, a := range r.Arms {
		assert.Zero(t, a.Refused)
	}
	assert.Contains(t, r.Warnings, report.Warn(report.KindBusyMachine, "%d of %d windows waited for CPUs others held, a median 28%% of their runnable time (their contention blocks say how long), and were counted: their figures include that wait, so an absolute target's answer errs towards more CPU", r.Windows, r.Windows))
	require.NotNil(t, r.Contention.UnlimitedWaitShare)
	assert.InDelta(t, 0.28, *r.Contention.UnlimitedWaitShare, 1e-9)
	assert.Zero(t, r.Contention.ContendedWindows)
}

// No level passing where the levels' windows were refused is no answer
// either way: undecided, not "no limit".
func TestNoPassWithRefusedLevelsIsUndecided(t *testing.T) {
	p := resolve(t, options.Size{SLO: "p99<=50ms", CPUsMin: "0.2", CPUsMax: "1", Step: "0.2"}, map[string]string{"rate": "100"})
	f := &fake{open: true, usedCPUs: 0.5, figure: needs(0.6), edit: func(c float64, m *sizing.Measured) {
		if c >= 0.6 && !math.IsInf(c, 1) {
			m.Latency.Contention = waitedFortyPercent()
		}
	}}
	r, err := sizing.Engine{Window: f.window, NumCPU: 2}.Run(context.Background(), p)
	require.NoError(t, err)
	assert.Nil(t, r.Recommendation)
	assert.Equal(t, sizing.OutcomeUndecided, r.Outcome)
	assert.Contains(t, r.Why, "no level passed, and")
	assert.Contains(t, r.Why, "the levels left undecided did not fail")
}
