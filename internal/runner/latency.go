package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/usage"
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

// PeakInterval is the window of peak_cpus_100ms: the bandwidth
// controller's default period, the scale at which a quota bites.
const PeakInterval = 100 * time.Millisecond

// Latency runs one open-loop configuration (o.Open) in the cgroup o asks
// for and returns its report, with the same guarantees as Run.
func (l *Local) Latency(ctx context.Context, o Options) (*report.Latency, error) {
	l.session()
	k := l.withDefaults()
	// Traced, every request's span comes back, to tie the throttles to.
	o.Open.Spans = o.Trace
	return inCgroup(k, ctx, o, k.latencyCreated, k.latencyCurrent)
}

// window is what the parent reads around the open loop's schedule.
type window struct {
	k   Local
	o   Options
	g   Group
	cpu func() (time.Duration, error) // the workload's CPU time
	// source says what cpu reads: report.SourceCgroup or SourceProcess.
	source string
	// cpuAtEnd is the workload's CPU time at the end, from its result: a
	// child has exited by the time the parent could read it.
	cpuAtEnd func(bench.LatencyResult) (time.Duration, error)
	hostCPU  func() (host.CPUTimes, error)
	usage    func() (time.Duration, error) // current mode: the cgroup's; nil otherwise
	process  func() (time.Duration, error) // current mode: this process's

	tw       *traceWindow // --trace; nil without
	before   cgroup.CPUStat
	bgBefore reading
	cpu0     *time.Duration
	t0       time.Time
	stopPeak func() *float64
}

// open reads the counters and starts sampling: called once the workload
// is calibrated, just before its first arrival.
func (w *window) open(ctx context.Context) error {
	var err error
	w.tw.open()
	if w.before, err = w.g.Stat(); err != nil {
		return err
	}
	w.bgBefore = read(w.hostCPU, w.usage, w.process)
	if c, err := w.cpu(); err == nil {
		w.cpu0 = &c
	}
	w.t0 = time.Now()
	w.stopPeak = samplePeak(ctx, w.k.SampleClock(), w.cpu)
	return nil
}

// close stops the sampling, reads the counters again and builds the report.
func (w *window) close(res bench.LatencyResult, mode string, cg cgroup.Cgroup, limits cgroup.Limits, chain []cgroup.Level,
	cpuset string, started time.Time, warnings []string) (*report.Latency, error) {
	peak := w.stopPeak()
	elapsed := time.Since(w.t0)
	var used *time.Duration
	if c, err := w.cpuAtEnd(res); err == nil && w.cpu0 != nil && c >= *w.cpu0 {
		d := c - *w.cpu0
		used = &d
	}
	bgAfter := read(w.hostCPU, w.usage, w.process)
	after, err := w.g.Stat()
	w.tw.close()
	if err != nil {
		return nil, err
	}
	rep := build.BuildLatency(build.LatencyInput{
		Open: w.o.Open, Policy: w.o.Policy, Mode: mode, Cgroup: group(cg), Limits: limits, Chain: chain,
		NumCPU: runtime.NumCPU(), Result: res, Stat: after.Sub(w.before), Host: w.k.HostInfo(w.o.Host.Root, started),
		Window: elapsed, CPU: used, CPUSource: w.source, Peak100: peak, Warnings: warnings, Background: background(w.bgBefore, bgAfter),
		Cpuset: w.o.CPUs, CgroupCpuset: cpuset,
	})
	w.tw.traceLatency(rep, openLoopSpans(res))
	return rep, nil
}

func (k Local) latencyCreated(ctx context.Context, o Options, started time.Time, slice Slice, notes []string) (*report.Latency, error) {
	limits, chain, cpuset, err := readBackSlice(slice)
	if err != nil {
		return nil, err
	}
	child, err := k.StartOpen(o.Exe, o.Open, o.Stderr)
	if err != nil {
		return nil, err
	}
	defer child.Kill()
	if err := placeAndWarm(ctx, slice, child); err != nil {
		return nil, err
	}
	// The child is alone in its slice: its CPU time is the slice's usage,
	// read the same way on v1 (whose created slice has no cpuacct) and v2.
	w := &window{k: k, o: o, g: slice, source: report.SourceProcess,
		cpu: func() (time.Duration, error) { return k.PIDCPU(child.Pid()) },
		cpuAtEnd: func(res bench.LatencyResult) (time.Duration, error) {
			if res.ProcessCPU <= 0 {
				return 0, errors.New("the workload did not report its CPU time")
			}
			return res.ProcessCPU, nil
		},
		hostCPU: func() (host.CPUTimes, error) { return k.HostCPU(o.Host.Root) }}
	w.tw = k.startTrace(o, slice.Cgroup().Dir)
	defer w.tw.stop()
	if err := w.open(ctx); err != nil {
		return nil, err
	}
	defer w.stopPeak()
	if err := child.Measure(); err != nil {
		return nil, fmt.Errorf("start the requests: %w", err)
	}
	res, err := child.WaitLatency(ctx)
	if err != nil {
		return nil, err
	}
	return w.close(res, "created", slice.Cgroup(), limits, chain, cpuset, started, notes)
}

func (k Local) latencyCurrent(ctx context.Context, o Options, started time.Time, warnings []string) (*report.Latency, error) {
	cg, err := k.Cgroups.Self(o.Host, o.Version)
	if err != nil {
		return nil, fmt.Errorf("find the current cgroup: %w", err)
	}
	limits, chain, err := readBack(cg)
	if err != nil {
		return nil, err
	}
	// The cgroup's usage where it is known (others in it count: a warning
	// says so), else this process's.
	cpu, source := cg.Usage, report.SourceCgroup
	if _, err := cg.Usage(); err != nil {
		cpu, source = k.ProcessCPU, report.SourceProcess
	}
	w := &window{k: k, o: o, g: cg, cpu: cpu, source: source, usage: cg.Usage, process: k.ProcessCPU,
		cpuAtEnd: func(bench.LatencyResult) (time.Duration, error) { return cpu() },
		hostCPU:  func() (host.CPUTimes, error) { return k.HostCPU(o.Host.Root) }}
	w.tw = k.startTrace(o, cg.Cgroup().Dir)
	defer w.tw.stop()
	opened := false
	res, err := k.RunOpenHere(ctx, o.Open, func() error {
		opened = true
		return w.open(ctx)
	})
	if opened && w.stopPeak != nil {
		defer w.stopPeak()
	}
	if err != nil {
		return nil, err
	}
	return w.close(res, "current", cg.Cgroup(), limits, chain, "", started, warnings)
}

// samplePeak samples the counter every PeakInterval on clk until the
// returned stop is called, which returns the highest usage in any whole
// interval, in CPUs, or nil when there was none. stop may be called again.
func samplePeak(ctx context.Context, clk usage.Clock, counter func() (time.Duration, error)) (stop func() *float64) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan usage.Recording, 1)
	go func() {
		done <- usage.Sampler{Counter: counterFunc(counter), Clock: clk, Interval: PeakInterval}.Run(ctx)
	}()
	var peak *float64
	stopped := false
	return func() *float64 {
		if !stopped {
			stopped = true
			cancel()
			if cpus := (<-done).Trace.CPUs(); len(cpus) > 0 {
				m := slices.Max(cpus)
				peak = &m
			}
		}
		return peak
	}
}

// counterFunc is a function as a usage.Counter.
type counterFunc func() (time.Duration, error)

func (f counterFunc) Usage() (time.Duration, error) { return f() }
