package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner/runnertest"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// world fakes the kernel, the child and the clocks behind a Local: the
// kernel is runnertest's, whose log the child's steps go into too.
type world struct {
	runnertest.Kernel
	// measured is the CPU time the child reports over its measured
	// iterations.
	measured time.Duration
}

const fakePid = 4242

// fakeChild answers like the real child; Kill may come more than once.
type fakeChild struct{ w *world }

func (c fakeChild) Pid() int       { return fakePid }
func (c fakeChild) Go() error      { return c.w.Step("go") }
func (c fakeChild) Kill()          { c.w.Step("kill") }
func (c fakeChild) Measure() error { return c.w.Step("measure") }

func (c fakeChild) WaitWarm(ctx context.Context) error {
	if err := c.w.Step("warm"); err != nil {
		return err
	}
	return ctx.Err()
}

func (c fakeChild) Wait(ctx context.Context) (bench.Result, error) {
	if err := c.w.Step("wait"); err != nil {
		return bench.Result{}, err
	}
	res := result
	res.MeasuredCPU = c.w.measured
	return res, ctx.Err()
}

// result is two measured iterations of one worker.
var result = bench.Result{GOMAXPROCS: 1, Iterations: []bench.Iteration{
	{Wall: 50 * time.Millisecond, Workers: []bench.WorkerSample{{Wall: 50 * time.Millisecond, CPU: 10 * time.Millisecond}}},
	{Wall: 60 * time.Millisecond, Workers: []bench.WorkerSample{{Wall: 60 * time.Millisecond, CPU: 10 * time.Millisecond}}},
}}

func (w *world) local() *Local {
	return &Local{
		Machine: Machine{
			Cgroups:    runnertest.Cgroups[Slice, Current]{Kernel: &w.Kernel},
			HostCPU:    w.HostCPU,
			ProcessCPU: w.ProcessCPU,
			HostInfo:   w.HostInfo,
			// The 100 ms sampler waits for ever: its reads would fall
			// among the others at the scheduler's whim.
			SampleClock: func() usage.Clock { return stalledClock{} },
		},
		Closed: ClosedLoop{
			StartChild: func(exe string, cfg runspec.ClosedLoop, _ io.Writer) (Child, error) {
				if err := w.Step("start " + exe); err != nil {
					return nil, err
				}
				return fakeChild{w}, nil
			},
			RunHere: func(ctx context.Context, cfg runspec.ClosedLoop, beforeMeasure func() error) (bench.Result, error) {
				if err := w.Step("warm here"); err != nil {
					return bench.Result{}, err
				}
				if err := beforeMeasure(); err != nil {
					return bench.Result{}, err
				}
				return result, w.Step("measure here")
			},
		},
	}
}

func options(mode string) Options {
	return Options{Options: plan.Options{
		Bench:  runspec.ClosedLoop{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 1, Iterations: 2, Warmup: 1, Workers: 1},
		Mode:   mode,
		Limits: cgroup.Limits{Period: 100 * time.Millisecond, Quota: 10 * time.Millisecond},
	}, Env: Env{Exe: "/bin/tb", Stderr: io.Discard}}
}

// The whole sequence of a created slice, in the order that makes it right:
// the child is inside the slice before it runs a single operation, the
// counters frame the measured iterations alone, and the child is gone
// before the slice is removed, the default parent last.
func TestCreatedRunOrder(t *testing.T) {
	t.Parallel()
	w := &world{Kernel: runnertest.Kernel{Removed: []string{"/fake/cpu/throttlebench/tb-1-2-deadbeef"}, Stats: []uint64{10, 25}}}
	var stderr bytes.Buffer
	o := options(ModeCreate)
	o.Stderr = &stderr
	o.Notes = []report.Warning{{Kind: report.KindLeftovers, Text: "stopped 1 scope(s) left by runs that no longer live: throttlebench-1-2-x.scope"}}
	rep, err := w.local().Run(context.Background(), o)
	require.NoError(t, err)

	assert.Equal(t, []string{
		"hierarchy", "clean /fake/cpu/throttlebench", "create", "limits", "chain", "cpuset",
		"start /bin/tb", "move 4242", "go", "warm",
		// The usage read twice at each end: for the background, and as the
		// CPU time the 100 ms sampler's trace starts from and ends at.
		"stat", "host cpu", "usage", "usage", "measure", "wait", "usage", "host cpu", "usage", "stat",
		"kill", "delete", "remove parent",
	}, w.Log())
	assert.Equal(t, cgroup.SliceSpec{Parent: "/fake/cpu/throttlebench", CreateParent: true, Limits: o.Limits}, w.Spec())
	assert.Contains(t, rep.Warnings, report.Warning{Kind: report.KindLeftovers, Text: "removed 1 slice left by runs that no longer live"})
	assert.Contains(t, rep.Warnings, o.Notes[0], "what the caller found (the driver's tidying) is in the warnings")
	assert.Empty(t, stderr.String(), "the runner prints nothing")

	assert.Equal(t, "created", rep.Cgroup.Mode)
	assert.Equal(t, "/fake/cpu/throttlebench/tb-fake", rep.Cgroup.Dir)
	assert.Equal(t, int64(20_000), rep.Cgroup.QuotaUs, "the limits read back, not the 10 ms asked for")
	require.NotNil(t, rep.Throttling.NrPeriods)
	assert.Equal(t, uint64(15), *rep.Throttling.NrPeriods, "cpu.stat after minus before")
	assert.Equal(t, []float64{50, 60}, rep.DurationsMs)
	assert.Equal(t, "fake", rep.Host.Kernel)
}

// A parent the user names is resolved, never created, and never removed.
func TestUserParentIsNeverCreated(t *testing.T) {
	t.Parallel()
	w := &world{}
	o := options(ModeCreate)
	o.Parent = "/user.slice/mine"
	_, err := w.local().Run(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, cgroup.SliceSpec{Parent: "/fake/cpu/user.slice/mine", Limits: o.Limits}, w.Spec())
	assert.Equal(t, []string{"hierarchy", "parent", "clean /fake/cpu/user.slice/mine", "create"}, w.Log()[:4])
	assert.NotContains(t, w.Log(), "remove parent")
	assert.Equal(t, "delete", w.Log()[len(w.Log())-1])
}

// Whichever step fails, the child that was started is killed and the
// slice that was created is deleted (after the kill: a slice with a
// process in it cannot be removed), and the step's error comes back.
func TestEveryFailureCleansUp(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, tc := range []struct {
		step    string
		created bool // the slice exists when the step fails
		started bool // so does the child
	}{
		{step: "create"},
		{step: "limits", created: true},
		{step: "chain", created: true},
		{step: "cpuset", created: true},
		{step: "start /bin/tb", created: true},
		{step: "move 4242", created: true, started: true},
		{step: "go", created: true, started: true},
		{step: "warm", created: true, started: true},
		{step: "stat", created: true, started: true},
		{step: "measure", created: true, started: true},
		{step: "wait", created: true, started: true},
	} {
		t.Run(tc.step, func(t *testing.T) {
			w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{tc.step: boom}}}
			rep, err := w.local().Run(context.Background(), options(ModeCreate))
			require.ErrorIs(t, err, boom)
			assert.Nil(t, rep)
			assertCleanedUp(t, w.Log(), tc.created, tc.started)
			assert.Equal(t, 1, count(w.Log(), tc.step), "the run stops at the failing step")
		})
	}
}

// assertCleanedUp checks the tail of a failed run's log: kill (if the child
// was started), then delete (if the slice was created) and the default
// parent's removal (which CreateSlice may have made even when it failed),
// and nothing ran after them.
func assertCleanedUp(t *testing.T, log []string, created, started bool) {
	t.Helper()
	tail := []string{}
	if started {
		tail = append(tail, "kill")
	}
	if created {
		tail = append(tail, "delete")
	}
	if created || slices.Contains(log, "create") {
		tail = append(tail, "remove parent")
	}
	require.GreaterOrEqual(t, len(log), len(tail), "log %v", log)
	assert.Equal(t, tail, log[len(log)-len(tail):], "log %v", log)
	assert.Equal(t, count(log, "kill") > 0, started, "child killed iff started: %v", log)
	assert.Equal(t, count(log, "delete") > 0, created, "slice deleted iff created: %v", log)
}

func count(log []string, event string) int {
	n := 0
	for _, e := range log {
		if e == event {
			n++
		}
	}
	return n
}

// A run cancelled before its slice exists creates nothing; one cancelled
// while the child works ends the child and removes the slice. Either way
// the error says it was cancelled, which is what stops a sweep.
func TestCancelledRunCleansUp(t *testing.T) {
	t.Parallel()
	t.Run("before create", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		w := &world{}
		_, err := w.local().Run(ctx, options(ModeCreate))
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, []string{"hierarchy", "clean /fake/cpu/throttlebench"}, w.Log())
	})
	t.Run("during wait", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := &world{Kernel: runnertest.Kernel{On: map[string]func(){"wait": cancel}}}
		_, err := w.local().Run(ctx, options(ModeCreate))
		require.ErrorIs(t, err, context.Canceled)
		assertCleanedUp(t, w.Log(), true, true)
	})
}

// A slice that cannot be removed is reported in the warnings; the
// measurement stands, and the default parent is still tried.
func TestFailedDeleteIsReported(t *testing.T) {
	t.Parallel()
	w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{"delete": errors.New("busy")}}}
	var stderr bytes.Buffer
	o := options(ModeCreate)
	o.Stderr = &stderr
	rep, err := w.local().Run(context.Background(), o)
	require.NoError(t, err)
	assert.NotNil(t, rep)
	assert.Contains(t, rep.Warnings, report.Warning{Kind: report.KindSliceLeft, Text: "the slice could not be removed: busy"})
	assert.Empty(t, stderr.String(), "the runner prints nothing")
	assert.Equal(t, []string{"kill", "delete", "remove parent"}, w.Log()[len(w.Log())-3:])
}

// No right to create a slice: auto mode without limits measures the
// current cgroup and says so; asked for a slice, or for limits, it fails
// with ErrNeedsPrivilege and runs nothing.
func TestPermissionDenied(t *testing.T) {
	t.Parallel()
	denied := fmt.Errorf("%w: mkdir: permission denied", cgroup.ErrPermission)
	for _, tc := range []struct {
		name      string
		mode      string
		limitsSet bool
		fallBack  bool
	}{
		{name: "auto falls back", mode: ModeAuto, fallBack: true},
		{name: "auto with limits fails", mode: ModeAuto, limitsSet: true},
		{name: "create fails", mode: ModeCreate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{"create": denied}}}
			var stderr bytes.Buffer
			o := options(tc.mode)
			o.LimitsSet, o.Stderr = tc.limitsSet, &stderr
			rep, err := w.local().Run(context.Background(), o)
			assert.NotContains(t, w.Log(), "delete", "nothing was created")
			if !tc.fallBack {
				require.ErrorIs(t, err, ErrNeedsPrivilege)
				assert.ErrorContains(t, err, denied.Error(), "the cause stays visible")
				assert.Equal(t, []string{"create", "remove parent"}, w.Log()[len(w.Log())-2:],
					"nothing runs after the refusal but the default parent's removal, should it have been made")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "current", rep.Cgroup.Mode)
			assert.Contains(t, rep.Warnings, report.Warning{Kind: report.KindCurrentCgroup, Text: "ran in the current cgroup: cannot create a slice under /fake/cpu/throttlebench (" + denied.Error() + ")"})
			assert.Empty(t, stderr.String(), "said in the warnings, not printed")
			assert.Equal(t, []string{"remove parent", "self"}, w.Log()[slices.Index(w.Log(), "create")+1:][:2])
		})
	}
}

// Where the default parent cannot give slices their limits (v2's top
// enables no cpu for its children: a container's own cgroup namespace),
// auto mode without limits measures where it is and says why; with
// limits, or under a parent the user named, the refusal stands.
func TestDefaultParentRefusedFallsBack(t *testing.T) {
	t.Parallel()
	refused := &cgroup.ParentError{Given: "/fake/cpu/throttlebench", Reason: "/fake/cpu does not enable the cpu controller for its children"}
	for _, tc := range []struct {
		name      string
		limitsSet bool
		parent    string
		fallBack  bool
	}{
		{name: "auto falls back", fallBack: true},
		{name: "with limits refused", limitsSet: true},
		{name: "a named parent refused", parent: "/fake/cpu/mine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{"create": refused}}}
			o := options(ModeAuto)
			o.LimitsSet, o.Parent = tc.limitsSet, tc.parent
			rep, err := w.local().Run(context.Background(), o)
			if !tc.fallBack {
				require.Error(t, err)
				assert.ErrorContains(t, err, refused.Reason)
				assert.NotContains(t, w.Log(), "self", "not measured where it is")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "current", rep.Cgroup.Mode)
			assert.Contains(t, rep.Warnings, report.Warning{Kind: report.KindCurrentCgroup, Text: "ran in the current cgroup: " + refused.Reason})
		})
	}
}

// Without a cpu hierarchy, auto mode without limits measures where it is;
// otherwise the error is the hierarchy's, for the caller to tell apart.
func TestNoHierarchy(t *testing.T) {
	t.Parallel()
	w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{"hierarchy": cgroup.ErrNoCPUController}}}
	rep, err := w.local().Run(context.Background(), options(ModeAuto))
	require.NoError(t, err)
	assert.Equal(t, "current", rep.Cgroup.Mode)
	assert.Contains(t, rep.Warnings, report.Warning{Kind: report.KindCurrentCgroup, Text: "ran in the current cgroup: " + cgroup.ErrNoCPUController.Error()})

	w = &world{Kernel: runnertest.Kernel{Fail: map[string]error{"hierarchy": cgroup.ErrNoCPUController}}}
	_, err = w.local().Run(context.Background(), options(ModeCreate))
	require.ErrorIs(t, err, cgroup.ErrNoCPUController)
	assert.Equal(t, []string{"hierarchy"}, w.Log())
}

// Current mode runs the workload in this process: the cgroup's counters and
// the usage readings (for the shared-cgroup warning) frame the measured
// iterations, after the warm-up.
func TestCurrentRunOrder(t *testing.T) {
	t.Parallel()
	w := &world{Kernel: runnertest.Kernel{Stats: []uint64{3, 7}}}
	rep, err := w.local().Run(context.Background(), options(ModeCurrent))
	require.NoError(t, err)
	assert.Equal(t, []string{
		"self", "limits", "chain", "warm here",
		"stat", "host cpu", "usage", "process cpu", "measure here",
		"host cpu", "usage", "process cpu", "stat",
	}, w.Log())
	assert.Equal(t, "current", rep.Cgroup.Mode)
	assert.Equal(t, "/user.slice", rep.Cgroup.Path)
	require.NotNil(t, rep.Throttling.NrPeriods)
	assert.Equal(t, uint64(4), *rep.Throttling.NrPeriods)
}

// A counter that cannot be read before the measured iterations stops the
// run in current mode too; one that cannot find the cgroup says what it
// was looking for.
func TestCurrentRunFailures(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{"stat": boom}}}
	_, err := w.local().Run(context.Background(), options(ModeCurrent))
	require.ErrorIs(t, err, boom)
	assert.NotContains(t, w.Log(), "measure here")

	w = &world{Kernel: runnertest.Kernel{Fail: map[string]error{"self": boom}}}
	_, err = w.local().Run(context.Background(), options(ModeCurrent))
	require.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "find the current cgroup")
}

// A created slice's usage is its own counter, read around the measured
// iterations alone: the counter has counted the warm-up (40 ms) by the
// time the child says it is warm, and the measured iterations (150 ms)
// once they are done; only those count. Against the 20 ms quota over the
// 15 periods counted in the same window, 150 ms is 0.5 of it.
func TestCreatedUsageFromTheSlice(t *testing.T) {
	t.Parallel()
	w := &world{Kernel: runnertest.Kernel{Stats: []uint64{10, 25}}, measured: 120 * time.Millisecond}
	w.UsageAt = func() time.Duration {
		var u time.Duration
		if w.Happened("warm") {
			u += 40 * time.Millisecond
		}
		if w.Happened("wait") {
			u += 150 * time.Millisecond
		}
		return u
	}
	rep, err := w.local().Run(context.Background(), options(ModeCreate))
	require.NoError(t, err)
	u := rep.Usage
	require.NotNil(t, u.CPUMs)
	assert.InDelta(t, 150, *u.CPUMs, 1e-9, "the warm-up excluded; the counter, not the child's clock")
	require.NotNil(t, u.Source)
	assert.Equal(t, report.SourceCgroup, *u.Source)
	require.NotNil(t, u.QuotaUtilisation)
	assert.InDelta(t, 0.5, *u.QuotaUtilisation, 1e-12, "150 ms / (20 ms × 15 periods)")
}

// A slice without a counter of its own (v1, cpuacct mounted apart) counts
// the child's CPU time over its measured iterations, as it reports it;
// without that too, the usage is unknown and the run stands.
func TestCreatedUsageFromTheChild(t *testing.T) {
	t.Parallel()
	w := &world{Kernel: runnertest.Kernel{Stats: []uint64{10, 25},
		Fail: map[string]error{"usage": fmt.Errorf("%w: no cpuacct.usage", cgroup.ErrNoUsage)}}, measured: 120 * time.Millisecond}
	rep, err := w.local().Run(context.Background(), options(ModeCreate))
	require.NoError(t, err)
	u := rep.Usage
	require.NotNil(t, u.CPUMs)
	assert.InDelta(t, 120, *u.CPUMs, 1e-9)
	require.NotNil(t, u.Source)
	assert.Equal(t, report.SourceProcess, *u.Source)
	require.NotNil(t, u.QuotaUtilisation)
	assert.InDelta(t, 0.4, *u.QuotaUtilisation, 1e-12, "120 ms / (20 ms × 15 periods)")

	w = &world{Kernel: runnertest.Kernel{Stats: []uint64{10, 25}, Fail: map[string]error{"usage": cgroup.ErrNoUsage}}}
	rep, err = w.local().Run(context.Background(), options(ModeCreate))
	require.NoError(t, err)
	assert.Equal(t, report.Usage{}, rep.Usage)
	assert.Equal(t, "delete", w.Log()[len(w.Log())-2])
}

// Current mode: the cgroup's counter over the measured iterations (after
// the warm-up); without it, this process's CPU time over the same window.
func TestCurrentUsage(t *testing.T) {
	t.Parallel()
	w := &world{Kernel: runnertest.Kernel{Stats: []uint64{3, 13}}}
	progress := func(warm, measured time.Duration) func() time.Duration {
		return func() time.Duration {
			var u time.Duration
			if w.Happened("warm here") {
				u += warm
			}
			if w.Happened("measure here") {
				u += measured
			}
			return u
		}
	}
	w.UsageAt = progress(30*time.Millisecond, 100*time.Millisecond)
	w.ProcessAt = progress(30*time.Millisecond, 80*time.Millisecond)
	rep, err := w.local().Run(context.Background(), options(ModeCurrent))
	require.NoError(t, err)
	u := rep.Usage
	require.NotNil(t, u.CPUMs)
	assert.InDelta(t, 100, *u.CPUMs, 1e-9)
	assert.Equal(t, report.SourceCgroup, *u.Source)
	require.NotNil(t, u.QuotaUtilisation)
	assert.InDelta(t, 0.5, *u.QuotaUtilisation, 1e-12, "100 ms / (20 ms × 10 periods)")

	w.ClearLog()
	w.Stats, w.Fail = []uint64{3, 13}, map[string]error{"usage": cgroup.ErrNoUsage}
	rep, err = w.local().Run(context.Background(), options(ModeCurrent))
	require.NoError(t, err)
	u = rep.Usage
	require.NotNil(t, u.CPUMs)
	assert.InDelta(t, 80, *u.CPUMs, 1e-9)
	assert.Equal(t, report.SourceProcess, *u.Source)
}

// --cpuset where v1 keeps cpusets apart: the slice is asked for with its
// twin's parent there, stale twins are tidied before it is created, the
// twin's default parent goes after the slice, and the report says what
// was asked and what the kernel took.
func TestCpusetRunOrder(t *testing.T) {
	t.Parallel()
	cpusets := cgroup.Hierarchy{Version: 1, MountPoint: "/fake/cpuset", MountRoot: "/"}
	w := &world{Kernel: runnertest.Kernel{Cpusets: &cpusets, Cpuset: "1", Stats: []uint64{10, 25},
		Removed: []string{"/fake/cpuset/throttlebench/tb-1-2-deadbeef"}}}
	var stderr bytes.Buffer
	o := options(ModeCreate)
	o.Stderr, o.CPUs = &stderr, []int{1}
	rep, err := w.local().Run(context.Background(), o)
	require.NoError(t, err)

	assert.Equal(t, []string{"hierarchy", "clean /fake/cpu/throttlebench", "clean /fake/cpuset/throttlebench", "create",
		"limits", "chain", "cpuset"}, w.Log()[:7])
	assert.Equal(t, []string{"kill", "delete", "remove parent", "remove parent /fake/cpuset"}, w.Log()[len(w.Log())-4:])
	assert.Equal(t, &cgroup.CpusetSpec{Hier: cpusets, Parent: "/fake/cpuset/throttlebench", CPUs: []int{1}}, w.Spec().Cpuset)
	assert.Contains(t, rep.Warnings, report.Warning{Kind: report.KindLeftovers, Text: "removed 2 slices left by runs that no longer live"}, "the stale slice and its stale twin")
	assert.Equal(t, "1", rep.Config.Cpuset)
	assert.Equal(t, "1", rep.Cgroup.Cpuset)

	// A parent the user names: its twin is where the slice's goes; neither
	// is ever removed.
	w = &world{Kernel: runnertest.Kernel{Cpusets: &cpusets}}
	o.Parent = "/user.slice/mine"
	_, err = w.local().Run(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, "/fake/cpuset/user.slice/mine", w.Spec().Cpuset.Parent)
	assert.Contains(t, w.Log(), "clean /fake/cpuset/user.slice/mine")
	assert.NotContains(t, strings.Join(w.Log(), ","), "remove parent")
}

// A slice that cannot be created (limits refused, a cpuset the kernel will
// not take, a v2 top that cannot give the default parent +cpuset) may leave
// the default parent, and on v1 its cpuset twin, that CreateSlice made for
// it: they are removed when empty, as after a run. A parent the user named
// is not.
func TestFailedCreateRemovesTheDefaultParents(t *testing.T) {
	t.Parallel()
	cpusets := cgroup.Hierarchy{Version: 1, MountPoint: "/fake/cpuset", MountRoot: "/"}
	for _, failure := range []error{cgroup.ErrLimitsRefused, errors.New("write CPUs 1: invalid argument"), cgroup.ErrPermission} {
		t.Run(failure.Error(), func(t *testing.T) {
			w := &world{Kernel: runnertest.Kernel{Cpusets: &cpusets, Fail: map[string]error{"create": failure}}}
			o := options(ModeCreate)
			o.CPUs = []int{1}
			_, err := w.local().Run(context.Background(), o)
			require.ErrorContains(t, err, failure.Error())
			assert.Equal(t, []string{"create", "remove parent", "remove parent /fake/cpuset"}, w.Log()[len(w.Log())-3:])

			// Where cpusets live with cpu (v2), the one default parent.
			w = &world{Kernel: runnertest.Kernel{Fail: map[string]error{"create": failure}}}
			_, err = w.local().Run(context.Background(), o)
			require.ErrorContains(t, err, failure.Error())
			assert.Equal(t, []string{"create", "remove parent"}, w.Log()[len(w.Log())-2:])

			w = &world{Kernel: runnertest.Kernel{Cpusets: &cpusets, Fail: map[string]error{"create": failure}}}
			o.Parent = "/user.slice/mine"
			_, err = w.local().Run(context.Background(), o)
			require.ErrorContains(t, err, failure.Error())
			assert.NotContains(t, strings.Join(w.Log(), ","), "remove parent")
			assert.Equal(t, "create", w.Log()[len(w.Log())-1])
		})
	}
}

// Without --cpuset nothing of the cpuset is asked for; where v1 keeps
// cpusets apart, stale twins are still tidied.
func TestNoCpuset(t *testing.T) {
	t.Parallel()
	cpusets := cgroup.Hierarchy{Version: 1, MountPoint: "/fake/cpuset", MountRoot: "/"}
	w := &world{Kernel: runnertest.Kernel{Cpusets: &cpusets}}
	rep, err := w.local().Run(context.Background(), options(ModeCreate))
	require.NoError(t, err)
	assert.Nil(t, w.Spec().Cpuset)
	assert.Contains(t, w.Log(), "clean /fake/cpuset/throttlebench")
	assert.Equal(t, "", rep.Config.Cpuset)

	// No cpuset controller anywhere: no matter, unless --cpuset asks.
	w = &world{Kernel: runnertest.Kernel{CpusetErr: cgroup.ErrNoCpuset}}
	_, err = w.local().Run(context.Background(), options(ModeCreate))
	require.NoError(t, err)
	o := options(ModeCreate)
	o.CPUs = []int{0}
	w = &world{Kernel: runnertest.Kernel{CpusetErr: cgroup.ErrNoCpuset}}
	_, err = w.local().Run(context.Background(), o)
	require.ErrorIs(t, err, cgroup.ErrNoCpuset)
	assert.ErrorContains(t, err, "--cpuset 0")
	assert.NotContains(t, w.Log(), "create", "nothing created")
}

// The report counts the CPUs the workload process could use, as it says,
// not this machine's: effective_cpus and the model.
func TestEffectiveCPUsFromTheChild(t *testing.T) {
	t.Parallel()
	// What the kernel took: no quota.
	w := &world{Kernel: runnertest.Kernel{Limits: cgroup.Limits{Period: 100 * time.Millisecond, Quota: cgroup.Unlimited}}}
	l := w.local()
	res := result
	res.AllowedCPUs = []int{3}
	l.Closed.StartChild = func(string, runspec.ClosedLoop, io.Writer) (Child, error) { return resultChild{fakeChild{w}, res}, nil }
	o := options(ModeCreate)
	o.Limits.Quota = cgroup.Unlimited
	rep, err := l.Run(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, 1.0, rep.Cgroup.EffectiveCPUs)
	assert.Equal(t, "3", rep.Cgroup.AllowedCPUs)

	// Current mode too: the driver runs here and says the same.
	l.Closed.RunHere = func(ctx context.Context, cfg runspec.ClosedLoop, beforeMeasure func() error) (bench.Result, error) {
		return res, beforeMeasure()
	}
	rep, err = l.Run(context.Background(), options(ModeCurrent))
	require.NoError(t, err)
	assert.Equal(t, 1.0, rep.Cgroup.EffectiveCPUs)
}

// resultChild is a fakeChild whose result is res.
type resultChild struct {
	fakeChild
	res bench.Result
}

func (c resultChild) Wait(ctx context.Context) (bench.Result, error) {
	if _, err := c.fakeChild.Wait(ctx); err != nil {
		return bench.Result{}, err
	}
	return c.res, nil
}
