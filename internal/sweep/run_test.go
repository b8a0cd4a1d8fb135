package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
)

// fakeRunner answers each configuration (by its quota) with a report or an
// error, and records what it was asked to run.
type fakeRunner struct {
	errs  map[string]error // by the configuration's quota, as cgroup reads it
	ran   []string
	onRun func(n int)
}

func (f *fakeRunner) Run(ctx context.Context, o plan.Options) (*report.Report, error) {
	key := o.Limits.Quota.String()
	f.ran = append(f.ran, key)
	if f.onRun != nil {
		f.onRun(len(f.ran))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := f.errs[key]; err != nil {
		return nil, err
	}
	return &report.Report{Config: report.Config{Workload: o.Bench.Workload, Batch: o.Bench.Batch}, Stats: report.Stats{MeanMs: 1}}, nil
}

func planned(t *testing.T, axes map[string]string) []Step {
	t.Helper()
	steps, err := Plan(Spec{Axes: axes, Fixed: map[string]string{"batch": "5"}, MaxConfigs: 1000, NumCPU: 2,
		Options: func(c config.Config) (plan.Options, error) {
			return plan.Options{Limits: c.Limits, LimitsSet: c.LimitsSet}, nil
		}})
	require.NoError(t, err)
	return steps
}

func TestPlan(t *testing.T) {
	steps := planned(t, map[string]string{"cpus": "0.005,0.5", "period": "10ms,1s"})
	require.Len(t, steps, 4)
	// The CPU share varies fastest; 0.005 at 10ms is below the kernel's
	// minimum quota: skipped, not an error.
	assert.Equal(t, "period=10ms cpus=0.005", Describe(steps[0].Config))
	assert.Contains(t, steps[0].Skip, "below the kernel's 1ms minimum")
	assert.Empty(t, steps[1].Skip)
	assert.Empty(t, steps[2].Skip, "0.005 CPUs of a 1s period is 5ms")

	// Bad input stops the plan: nothing would be created.
	for _, axes := range []map[string]string{{"cpus": "0,0.5"}, {"workers": "1:x:1"}, {"cpus": "0.5", "quota": "5ms"}} {
		_, err := Plan(Spec{Axes: axes, MaxConfigs: 1000, Options: func(config.Config) (plan.Options, error) { return plan.Options{}, nil }})
		var e *badinput.Error
		assert.ErrorAs(t, err, &e, "%v", axes)
	}
	_, err := Plan(Spec{Axes: map[string]string{"workers": "1:1000:1", "cpus": "0.1:1:0.1"}, MaxConfigs: 1000, NumCPU: 2,
		Options: func(c config.Config) (plan.Options, error) { return plan.Options{Limits: c.Limits}, nil }})
	assert.ErrorContains(t, err, "the sweep has 10000 configurations")
	assert.ErrorContains(t, err, "more than --max-configs allows (1000)")
}

// --cpus takes max beside numbers, as --quota does: an unlimited arm in
// the same sweep (issue 33: "max" is not a number); it forms no range, and
// a burst, which needs a quota, is skipped beside it.
func TestPlanCPUsMax(t *testing.T) {
	steps := planned(t, map[string]string{"cpus": "0.5,max", "burst": "0,10ms"})
	require.Len(t, steps, 4)
	assert.Equal(t, "burst=0s cpus=max", Describe(steps[1].Config))
	assert.Empty(t, steps[1].Skip)
	assert.Equal(t, bandwidth.Unlimited, steps[1].Opts.Limits.Quota)
	assert.True(t, steps[1].Opts.LimitsSet, "an unlimited slice is still a slice of ours")
	assert.Equal(t, 50*time.Millisecond, steps[0].Opts.Limits.Quota)
	assert.Contains(t, steps[3].Skip, "a burst needs a quota")
	_, err := Plan(Spec{Axes: map[string]string{"cpus": "0.5:max:0.5"}, MaxConfigs: 1000, Options: func(config.Config) (plan.Options, error) { return plan.Options{}, nil }})
	assert.ErrorContains(t, err, "only numbers can form a range")
}

func TestLoopSkipsOnlyWhatTheKernelRefuses(t *testing.T) {
	steps := planned(t, map[string]string{"quota": "10ms,20ms,30ms"})
	f := &fakeRunner{errs: map[string]error{"20ms": fmt.Errorf("set up cgroup: %w", cgroup.ErrLimitsRefused)}}
	var saved [][]Row
	var told []string
	rows, err := Loop[*report.Report]{Runner: f, Save: func(r []Row) error { saved = append(saved, append([]Row{}, r...)); return nil },
		Skipped: func(c Config, why string) { told = append(told, Describe(c)+": "+why) }}.Run(context.Background(), steps)
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.NotNil(t, rows[0].Report)
	assert.Contains(t, rows[1].Skipped, "the kernel refused these limits")
	assert.NotNil(t, rows[2].Report)
	assert.Equal(t, []string{"quota=20ms: set up cgroup: the kernel refused these limits"}, told)
	// Saved after each configuration that ran: an interrupted sweep keeps them.
	require.Len(t, saved, 2)
	assert.Len(t, saved[0], 1)
	assert.Len(t, saved[1], 3)
}

// A list says before it starts how many configurations run and about how
// long, terminal or not (issue 28: 901 ran 8 minutes without a word).
func TestLoopAnnounces(t *testing.T) {
	steps := planned(t, map[string]string{"cpus": "0.005,0.5,1", "period": "10ms"})
	var b strings.Builder
	_, err := Loop[*report.Report]{Runner: &fakeRunner{}, Announce: &b, NumCPU: 2, What: "sweep"}.Run(context.Background(), steps)
	require.NoError(t, err)
	assert.Regexp(t, `^throttlebench: sweep of 2 configurations, about [0-9.]+ ?[a-z]+; 1 more configuration skipped \(limits the kernel refuses\)\n$`, b.String())

	b.Reset()
	_, err = Loop[*report.Report]{Runner: &fakeRunner{}, Announce: &b, What: "sweep"}.Run(context.Background(), steps[1:2])
	require.NoError(t, err)
	assert.Empty(t, b.String(), "one configuration needs no announcement")

	late := planned(t, map[string]string{"cpus": "0.5,1"})
	for i := range late {
		late[i].Opts.Open.Duration = 10 * time.Second
	}
	b.Reset()
	_, err = Loop[*report.Report]{Runner: &fakeRunner{}, Announce: &b, What: "run"}.Run(context.Background(), late)
	require.NoError(t, err)
	assert.Equal(t, "throttlebench: run of 2 configurations, about 20s\n", b.String(), "a latency list lasts its durations")
}

func TestLoopStopsOnAnythingElse(t *testing.T) {
	steps := planned(t, map[string]string{"quota": "10ms,20ms,30ms"})
	for _, stop := range []error{runner.ErrNeedsPrivilege, cgroup.ErrNoCPUController, errors.New("workload process died: signal: killed")} {
		f := &fakeRunner{errs: map[string]error{"20ms": stop}}
		rows, err := Loop[*report.Report]{Runner: f}.Run(context.Background(), steps)
		assert.ErrorIs(t, err, stop)
		assert.True(t, strings.HasPrefix(err.Error(), "quota=20ms: "), "the configuration it stopped at: %v", err)
		assert.Len(t, rows, 1, "the rows before it are kept")
		assert.Equal(t, []string{"10ms", "20ms"}, f.ran, "nothing runs after it")
	}
}

// Ctrl-C in the second configuration: the loop stops there, with the first
// one's row, and a refusal that comes with a cancelled context is no skip.
func TestLoopInterrupted(t *testing.T) {
	steps := planned(t, map[string]string{"quota": "10ms,20ms,30ms"})
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeRunner{onRun: func(n int) {
		if n == 2 {
			cancel()
		}
	}}
	rows, err := Loop[*report.Report]{Runner: f}.Run(ctx, steps)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Len(t, rows, 1)
}

func TestLoopAllSkippedIsAnError(t *testing.T) {
	steps := planned(t, map[string]string{"cpus": "0.001,0.005", "period": "10ms"})
	rows, err := Loop[*report.Report]{Runner: &fakeRunner{}}.Run(context.Background(), steps)
	assert.ErrorIs(t, err, ErrAllSkipped)
	assert.Len(t, rows, 2)
}

// --timeout: the configuration running when it passes is stopped (its
// context ends), the list stops there with the rows before it, saved, and
// the error says how far it got.
func TestLoopTimeout(t *testing.T) {
	steps := planned(t, map[string]string{"quota": "10ms,20ms,30ms"})
	var saved []int
	var ran []string
	stall := RunFunc[*report.Latency](func(ctx context.Context, o plan.Options) (*report.Latency, error) {
		ran = append(ran, o.Limits.Quota.String())
		if len(ran) == 2 {
			<-ctx.Done() // the run's own cleanup, then its error
			return nil, fmt.Errorf("run: %w", ctx.Err())
		}
		return &report.Latency{}, nil
	})
	rows, err := Loop[*report.Latency]{Runner: stall, Timeout: 50 * time.Millisecond, What: "run",
		Save: func(r []Outcome[*report.Latency]) error { saved = append(saved, len(r)); return nil }}.Run(context.Background(), steps)
	var te *TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "the run exceeded --timeout 50ms and was stopped after 1 configurations; nothing left behind", err.Error())
	assert.Len(t, rows, 1)
	assert.NotNil(t, rows[0].Report)
	assert.Equal(t, []int{1}, saved, "saved after the first, before the timeout")
	assert.Equal(t, []string{"10ms", "20ms"}, ran, "nothing runs after it")

	// An interrupt is no timeout, with one or without.
	ctx, cancel := context.WithCancel(context.Background())
	interrupted := RunFunc[*report.Latency](func(ctx context.Context, _ plan.Options) (*report.Latency, error) {
		cancel()
		return nil, ctx.Err()
	})
	_, err = Loop[*report.Latency]{Runner: interrupted, Timeout: time.Hour, What: "run"}.Run(ctx, steps)
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.As(err, &te))
}
