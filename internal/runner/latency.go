package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
)

// OpenChild is the open loop's workload process: as Child, with the open
// loop's result. Its warm-up is the calibration, its measured part the
// whole schedule.
type OpenChild interface {
	Pid() int
	Go() error
	WaitWarm(ctx context.Context) error
	Measure() error
	WaitLatency(ctx context.Context) (bench.LatencyResult, error)
	Kill()
}

// Latency runs one open-loop configuration (o.Open) in the cgroup o asks
// for and returns its report, with the same guarantees as Run.
func (l *Local) Latency(ctx context.Context, o Options) (*report.Latency, error) {
	l.session()
	k := l.withDefaults()
	// Traced, every request's span comes back, to tie the throttles to.
	o.Open.Spans = o.Trace
	return inCgroup(k, ctx, o, k.latencyCreated, k.latencyCurrent)
}

// latencyReport builds the open loop's report from its window.
func (k Local) latencyReport(o Options, res bench.LatencyResult, m Measured, source, mode string, cg cgroup.Cgroup, limits cgroup.Limits,
	chain []cgroup.Level, cpuset string, started time.Time, warnings []report.Warning, tw *tracewindow.Window) *report.Latency {
	rep := build.BuildLatency(build.LatencyInput{
		Open: o.Open, Policy: o.Policy, Mode: mode, Cgroup: group(cg), Limits: limits, Chain: chain,
		NumCPU: runtime.NumCPU(), Result: res, Stat: m.Stat, Host: k.HostInfo(o.Host.Root, started),
		Window: m.Elapsed, CPU: m.CPU, CPUSource: source, Peak100: m.Peak, Warnings: warnings, Background: m.Background,
		Cpuset: o.CPUs, CgroupCpuset: cpuset,
	})
	rep.CPUs100ms = m.Intervals
	tw.Latency(rep, tracewindow.OpenLoopSpans(res), throttle.ThreadsWorker)
	return rep
}

func (k Local) latencyCreated(ctx context.Context, o Options, started time.Time, slice Slice, notes []report.Warning) (*report.Latency, error) {
	limits, chain, cpuset, err := readBackSlice(slice)
	if err != nil {
		return nil, err
	}
	o.Open = openWithQuota(o, limits)
	child, err := k.Open.StartOpen(o.Exe, o.Open, o.Stderr)
	if err != nil {
		return nil, err
	}
	defer child.Kill()
	if err := placeAndWarm(ctx, slice, child); err != nil {
		return nil, err
	}
	// The child is alone in its slice: its CPU time is the slice's usage,
	// read the same way on v1 (whose created slice has no cpuacct) and v2.
	tw := k.TraceGroup(o, slice.Cgroup().Dir)
	defer tw.Stop()
	w := Window{Group: slice, Trace: tw, HostCPU: k.hostCPU(o), Clock: k.SampleClock,
		CPU: func() (time.Duration, error) { return k.PIDCPU(child.Pid()) }, Waits: k.WaitsOf(slice.Cgroup(), o.Host.Root)}
	res, m, err := RunWindow(ctx, w, func(open func() error) (bench.LatencyResult, error) {
		if err := open(); err != nil {
			return bench.LatencyResult{}, err
		}
		if err := child.Measure(); err != nil {
			return bench.LatencyResult{}, fmt.Errorf("start the requests: %w", err)
		}
		return child.WaitLatency(ctx)
	}, func(res bench.LatencyResult) (time.Duration, error) {
		if res.ProcessCPU <= 0 {
			return 0, errors.New("the workload did not report its CPU time")
		}
		return res.ProcessCPU, nil
	})
	if err != nil {
		return nil, err
	}
	return k.latencyReport(o, res, m, report.SourceProcess, "created", slice.Cgroup(), limits, chain, cpuset, started, notes, tw), nil
}

func (k Local) latencyCurrent(ctx context.Context, o Options, started time.Time, warnings []report.Warning) (*report.Latency, error) {
	cg, err := k.Cgroups.Self(o.Host, o.Version)
	if err != nil {
		return nil, fmt.Errorf("find the current cgroup: %w", err)
	}
	limits, chain, err := readBack(cg)
	if err != nil {
		return nil, err
	}
	o.Open = openWithQuota(o, limits)
	// The cgroup's usage where it is known (others in it count: a warning
	// says so), else this process's.
	cpu, source := cg.Usage, report.SourceCgroup
	if _, err := cg.Usage(); err != nil {
		cpu, source = k.ProcessCPU, report.SourceProcess
	}
	tw := k.TraceGroup(o, cg.Cgroup().Dir)
	defer tw.Stop()
	w := Window{Group: cg, Trace: tw, HostCPU: k.hostCPU(o), Usage: cg.Usage, Process: k.ProcessCPU, CPU: cpu, Clock: k.SampleClock,
		Waits: k.WaitsOf(cg.Cgroup(), o.Host.Root)}
	res, m, err := RunWindow(ctx, w, func(open func() error) (bench.LatencyResult, error) {
		return k.Open.RunOpenHere(ctx, o.Open, open)
	}, nil)
	if err != nil {
		return nil, err
	}
	return k.latencyReport(o, res, m, source, "current", cg.Cgroup(), limits, chain, "", started, warnings, tw), nil
}

// openWithQuota is o's open loop with --gomaxprocs floor or ceil computed
// from the quota read back (config leaves them 0 until it is known).
func openWithQuota(o Options, limits cgroup.Limits) runspec.OpenLoop {
	open := o.Open
	if n, ok := QuotaGOMAXPROCS(o, limits); ok {
		open.GOMAXPROCS = n
	}
	return open
}

// QuotaGOMAXPROCS is --gomaxprocs floor's or ceil's GOMAXPROCS under
// limits, on the CPUs o may use, as the closed loop's
// runspec.ClosedLoop.WithQuota computes it; false for another policy.
func QuotaGOMAXPROCS(o Options, limits cgroup.Limits) (int, bool) {
	if o.Policy != runspec.RuleFloor && o.Policy != runspec.RuleCeil {
		return 0, false
	}
	return runspec.RuleGOMAXPROCS(o.Policy, limits.CPUs(), usableCPUs(o)), true
}
