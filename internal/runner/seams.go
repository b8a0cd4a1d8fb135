package runner

import (
	"context"
	"io"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/tracer"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
	"github.com/throttlebench/throttlebench/internal/usage"
	"github.com/throttlebench/throttlebench/internal/waits"
)

// Local's seams, by who uses them. Each group's zero value is the real
// kernel, processes and clocks (withDefaults); a test sets the seams it
// fakes. The engines of other packages (internal/fleet, internal/target)
// use the Machine and the Tracing, and carry their own seams themselves.

// Machine is what every engine reads of this machine.
type Machine struct {
	Cgroups Cgroups
	// HostCPU reads the machine's CPU times below a filesystem root;
	// ProcessCPU this process's CPU time; HostInfo the report's host block,
	// the machine read below a filesystem root too.
	HostCPU    func(root string) (host.CPUTimes, error)
	ProcessCPU func() (time.Duration, error)
	HostInfo   func(root string, started time.Time) report.Host
	// PIDCPU reads a process's CPU time; SampleClock times the sampling
	// of the workload's usage (the 100 ms peak).
	PIDCPU      func(pid int) (time.Duration, error)
	SampleClock func() usage.Clock
	// SchedStat reads a thread's scheduler counters below a filesystem
	// root (a window's waits).
	SchedStat func(root string, tid int) (host.SchedStat, error)
}

// WaitsOf reads the waits of cgroup g's threads, below root.
func (m Machine) WaitsOf(g cgroup.Cgroup, root string) *waits.Readers {
	return waits.Of(g, root, m.SchedStat)
}

func (m Machine) withDefaults() Machine {
	if m.Cgroups == nil {
		m.Cgroups = kernelCgroups{}
	}
	if m.HostCPU == nil {
		m.HostCPU = host.ReadStat
	}
	if m.ProcessCPU == nil {
		m.ProcessCPU = host.ProcessCPU
	}
	if m.HostInfo == nil {
		m.HostInfo = host.Info
	}
	if m.PIDCPU == nil {
		m.PIDCPU = host.PIDCPU
	}
	if m.SampleClock == nil {
		m.SampleClock = usage.NewClock
	}
	if m.SchedStat == nil {
		m.SchedStat = host.ReadSchedStat
	}
	return m
}

// ClosedLoop are Run's seams.
type ClosedLoop struct {
	// StartChild starts the workload child, not yet running (see Child).
	StartChild func(exe string, cfg runspec.ClosedLoop, stderr io.Writer) (Child, error)
	// RunHere runs the workload in this process (current mode), calling
	// beforeMeasure between the warm-up and the measured iterations.
	RunHere func(ctx context.Context, cfg runspec.ClosedLoop, beforeMeasure func() error) (bench.Result, error)
}

func (c ClosedLoop) withDefaults() ClosedLoop {
	if c.StartChild == nil {
		c.StartChild = startChild
	}
	if c.RunHere == nil {
		c.RunHere = bench.Run
	}
	return c
}

// OpenLoop are Latency's seams: StartOpen and RunOpenHere as StartChild
// and RunHere.
type OpenLoop struct {
	StartOpen   func(exe string, o runspec.OpenLoop, stderr io.Writer) (OpenChild, error)
	RunOpenHere func(ctx context.Context, o runspec.OpenLoop, beforeStart func() error) (bench.LatencyResult, error)
}

func (o OpenLoop) withDefaults() OpenLoop {
	if o.StartOpen == nil {
		o.StartOpen = startOpen
	}
	if o.RunOpenHere == nil {
		o.RunOpenHere = bench.RunOpenLoop
	}
	return o
}

// Tracing are --trace's seams.
type Tracing struct {
	// NewTracer attaches a throttle tracer tracing no group yet (once, at
	// the first traced run; Close detaches it); Monotonic reads
	// CLOCK_MONOTONIC, the clock of its events and of the measured window
	// they are matched to.
	NewTracer tracewindow.NewTracer
	Monotonic func() int64
	// TraceFamily reads the traced cgroup's family and counters around
	// the window (cgroup.Host.FamilyOf), CgroupID a cgroup's kernfs id
	// (cgroup.DirID): each group's traced time is set against its own
	// counter.
	TraceFamily func(h cgroup.Host, dir string) ([]cgroup.Member, error)
	CgroupID    func(dir string) (uint64, error)
	// CountsEmptyStretches says whether this kernel's throttled counters
	// count stretches no thread waited through
	// (tracer.CountsEmptyStretches), which a group's warning then names.
	CountsEmptyStretches func() bool
	// Model is the kernel's throttle model (tracer.Model), which a traced
	// result records.
	Model func() string
}

func (t Tracing) withDefaults() Tracing {
	if t.NewTracer == nil {
		t.NewTracer = newTracer
	}
	if t.Monotonic == nil {
		t.Monotonic = bench.Monotonic
	}
	if t.TraceFamily == nil {
		t.TraceFamily = cgroup.Host.FamilyOf
	}
	if t.CgroupID == nil {
		t.CgroupID = cgroup.DirID
	}
	if t.CountsEmptyStretches == nil {
		t.CountsEmptyStretches = tracer.CountsEmptyStretches
	}
	if t.Model == nil {
		t.Model = tracer.Model
	}
	return t
}
