package runner

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/childproto"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Local runs a configuration on this machine. Its zero value uses the real
// kernel, processes and clocks; each seam, when set, replaces one of them,
// so that tests can run the whole sequence on fakes, without root. The
// seams are grouped by who uses them (seams.go): the Machine every engine
// reads, the closed loop's (Run), the open loop's (Latency), the tracer's
// (--trace) and the commands' (Watch).
type Local struct {
	Machine
	Closed   ClosedLoop
	Open     OpenLoop
	Tracing  Tracing
	Commands Commands

	ts *tracewindow.Session // the tracer the traced runs share (session)
}

// NewLocal returns the runner on this machine's kernel.
func NewLocal() *Local { return &Local{} }

var _ Runner = (*Local)(nil)

// Child is the workload process of a created slice. It starts stopped: it
// runs nothing until Go, so that it can be moved into the slice first.
type Child interface {
	Pid() int
	Go() error
	WaitWarm(ctx context.Context) error // the warm-up iterations are done
	Measure() error                     // start the measured iterations
	Wait(ctx context.Context) (bench.Result, error)
	Kill() // end it and reap it; harmless once it has exited
}

// withDefaults fills the seams left unset with the real ones.
func (l Local) withDefaults() Local {
	l.Machine = l.Machine.withDefaults()
	l.Closed = l.Closed.withDefaults()
	l.Open = l.Open.withDefaults()
	l.Tracing = l.Tracing.withDefaults()
	l.Commands = l.Commands.withDefaults()
	return l
}

// Run executes one configuration of the closed loop and returns its report.
func (l *Local) Run(ctx context.Context, o Options) (*report.Report, error) {
	l.session()
	k := l.withDefaults()
	return inCgroup(k, ctx, o, k.runCreated, k.runCurrent)
}

func (k Local) runCreated(ctx context.Context, o Options, started time.Time, slice Slice, notes []report.Warning) (*report.Report, error) {
	limits, chain, cpuset, err := readBackSlice(slice)
	if err != nil {
		return nil, err
	}
	o.Bench = o.Bench.WithQuota(limits.CPUs(), usableCPUs(o))
	procs := runsProcesses(o.Bench)
	if procs {
		o.Bench.StatDir = slice.Cgroup().Dir // the counters around each run
	}
	child, err := k.Closed.StartChild(o.Exe, o.Bench, o.Stderr)
	if err != nil {
		return nil, err
	}
	// A command's daemon may outlive the child in the slice: once the
	// child is gone, what is left is the command's, and is killed, so
	// that the slice can go (KillLeft).
	defer func() {
		child.Kill()
		if procs {
			slice.KillLeft(0)
		}
	}()
	if err := placeAndWarm(ctx, slice, child); err != nil {
		return nil, err
	}
	tw := k.TraceGroup(o, slice.Cgroup().Dir)
	defer tw.Stop()
	// The machine's counters and the slice's usage: the workload is the
	// child, alone in its slice, and its own CPU time comes back with the
	// result.
	// The slice's usage is sampled too, every usage.PeakInterval: size's usage
	// rules are computed from that trace.
	w := Window{Group: slice, Trace: tw, HostCPU: k.hostCPU(o), Usage: slice.Usage, CPU: slice.Usage, Clock: k.SampleClock,
		Waits: k.WaitsOf(slice.Cgroup(), o.Host.Root)}
	res, m, err := RunWindow(ctx, w, func(open func() error) (bench.Result, error) {
		if err := open(); err != nil {
			return bench.Result{}, err
		}
		if err := child.Measure(); err != nil {
			return bench.Result{}, fmt.Errorf("start measured iterations: %w", err)
		}
		return child.Wait(ctx)
	}, nil)
	if err != nil {
		return nil, err
	}
	if procs {
		// What the command left, while the child, done and waiting,
		// still lives: killed this moment, this process could no longer
		// empty the slice, and the child does it instead (Serve).
		n, err := slice.KillLeft(child.Pid())
		child.Kill()
		if n > 0 || err != nil {
			notes = append(notes, killedNote(n, err))
		}
	}
	var own *time.Duration
	if res.MeasuredCPU > 0 {
		own = &res.MeasuredCPU
	}
	use, source := cgroupUsage(m.Background, own)
	rep := k.build(o, started, "created", slice.Cgroup(), limits, chain, res, m.Stat, m.Background, use, source, cpuset, notes)
	rep.CPUs100ms = m.Intervals
	tw.Run(rep, res)
	return rep, nil
}

// runsProcesses says whether cfg's workload starts processes of its own
// in the slice (the command).
func runsProcesses(cfg runspec.ClosedLoop) bool {
	spec, err := decl.Lookup(cfg.Workload)
	return err == nil && spec.Alone
}

// killedNote is the warning about what a command left in its slice.
func killedNote(n int, err error) report.Warning {
	if err != nil {
		return report.Warn(report.KindKilled, "the command left processes in the slice that could not all be killed (%d killed): %v", n, err)
	}
	return report.Warn(report.KindKilled, "the command left %s running in the slice after its last iteration (a daemon outside its process group): killed, so that the slice could be removed", words.N(n, "process"))
}

// cgroupUsage is the measured cgroup's CPU time over the window and where
// it was read: its own counter where it has one, else the workload
// process's CPU time (own), which is the slice's where the workload is
// alone in it; nil when neither is known.
func cgroupUsage(bg build.Background, own *time.Duration) (*time.Duration, string) {
	if bg.CgroupUsage != nil {
		return bg.CgroupUsage, report.SourceCgroup
	}
	if own != nil {
		return own, report.SourceProcess
	}
	return nil, ""
}

func (k Local) runCurrent(ctx context.Context, o Options, started time.Time, warnings []report.Warning) (*report.Report, error) {
	cg, err := k.Cgroups.Self(o.Host, o.Version)
	if err != nil {
		return nil, fmt.Errorf("find the current cgroup: %w", err)
	}
	limits, chain, err := readBack(cg)
	if err != nil {
		return nil, err
	}
	o.Bench = o.Bench.WithQuota(limits.CPUs(), usableCPUs(o))
	if runsProcesses(o.Bench) {
		// A command's loop reads the cgroup's counters around each run.
		if f, err := cgroup.OpenStat(cg.Cgroup().Dir); err == nil {
			defer f.Close()
			o.Bench.Stat = childproto.StatReader(f.Read)
		}
	}
	// Others may share this cgroup: its counters cover them too. Its usage
	// against this process's own CPU time tells whether they did.
	tw := k.TraceGroup(o, cg.Cgroup().Dir)
	defer tw.Stop()
	w := Window{Group: cg, Trace: tw, HostCPU: k.hostCPU(o), Usage: cg.Usage, Process: k.ProcessCPU,
		Waits: k.WaitsOf(cg.Cgroup(), o.Host.Root)}
	res, m, err := RunWindow(ctx, w, func(open func() error) (bench.Result, error) {
		return k.Closed.RunHere(ctx, o.Bench, open)
	}, nil)
	if err != nil {
		return nil, err
	}
	// Without the cgroup's counter, this process's CPU time: the workload's,
	// though not that of others in the cgroup.
	use, source := cgroupUsage(m.Background, m.Background.ProcessCPU)
	rep := k.build(o, started, "current", cg.Cgroup(), limits, chain, res, m.Stat, m.Background, use, source, "", warnings)
	tw.Run(rep, res)
	return rep, nil
}

// hostCPU reads the machine's CPU times below o's root.
func (k Local) hostCPU(o Options) func() (host.CPUTimes, error) {
	return func() (host.CPUTimes, error) { return k.HostCPU(o.Host.Root) }
}

// usableCPUs are the CPUs the workload may run on: the slice's cpuset, or
// this process's (its affinity: a container's).
func usableCPUs(o Options) int {
	if len(o.CPUs) > 0 {
		return len(o.CPUs)
	}
	return runtime.NumCPU()
}

func (k Local) build(o Options, started time.Time, mode string, cg cgroup.Cgroup, limits cgroup.Limits, chain []cgroup.Level,
	res bench.Result, stat cgroup.CPUStat, bg build.Background, use *time.Duration, source, cpuset string, warnings []report.Warning) *report.Report {
	// build.Build adds the warnings about the numbers themselves. The
	// CPUs the workers could use come with res; NumCPU where they do not.
	return build.Build(build.Input{
		Config: o.Bench, Policy: o.Policy, Mode: mode, Cgroup: group(cg), Limits: limits, Chain: chain,
		NumCPU: runtime.NumCPU(), Result: res, Stat: stat, Usage: use, UsageSource: source, Host: k.HostInfo(o.Host.Root, started), Warnings: warnings,
		Background: bg, Cpuset: o.CPUs, CgroupCpuset: cpuset,
	})
}

// group is a cgroup as the report names it.
func group(cg cgroup.Cgroup) bandwidth.Group {
	return bandwidth.Group{Version: cg.Version, Path: cg.Path, Dir: cg.Dir}
}
