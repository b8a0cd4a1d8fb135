package runner

import (
	"io"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/childproto"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/tracer"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
)

// The real kernel, processes and clocks behind Local's seams: the defaults
// of a zero Local. Nothing else in this package reads or changes the system.

// kernelCgroups is Cgroups on the kernel's cgroup filesystem.
type kernelCgroups struct{}

func (kernelCgroups) CPUHierarchy(h cgroup.Host, version int) (cgroup.Hierarchy, error) {
	return h.CPUHierarchy(version)
}

func (kernelCgroups) CpusetHierarchy(h cgroup.Host, cpu cgroup.Hierarchy) (cgroup.Hierarchy, error) {
	return h.CpusetHierarchy(cpu)
}

func (kernelCgroups) ParentDir(hier cgroup.Hierarchy, p string) (string, error) {
	return hier.ParentDir(p)
}

func (kernelCgroups) CleanStale(hier cgroup.Hierarchy, parent string) ([]string, []cgroup.Skipped, error) {
	return hier.CleanStale(parent)
}

func (kernelCgroups) CreateSlice(hier cgroup.Hierarchy, spec cgroup.SliceSpec) (Slice, error) {
	s, err := hier.CreateSlice(spec)
	if err != nil {
		return nil, err
	}
	return kernelSlice{s}, nil
}

func (kernelCgroups) RemoveDefaultParent(hier cgroup.Hierarchy) { hier.RemoveDefaultParent() }

func (kernelCgroups) Self(h cgroup.Host, version int) (Current, error) {
	cg, err := h.Self(version)
	if err != nil {
		return nil, err
	}
	// Looked up once: where the usage is not known (ErrNoUsage) every
	// reading says so, and the shared-cgroup warning stays silent.
	acct, err := h.Accounting(cg)
	return kernelCurrent{kernelGroup{cg}, acct, err}, nil
}

// kernelGroup is the process's own cgroup (current mode).
type kernelGroup struct{ cg cgroup.Cgroup }

func (g kernelGroup) Cgroup() cgroup.Cgroup          { return g.cg }
func (g kernelGroup) Limits() (cgroup.Limits, error) { return g.cg.Limits() }
func (g kernelGroup) Chain() ([]cgroup.Level, error) { return g.cg.Chain() }
func (g kernelGroup) Stat() (cgroup.CPUStat, error)  { return g.cg.Stat() }

type kernelCurrent struct {
	kernelGroup
	acct    cgroup.Cgroup // where this process's CPU usage is counted
	acctErr error         // why that is not known
}

func (c kernelCurrent) Usage() (time.Duration, error) {
	if c.acctErr != nil {
		return 0, c.acctErr
	}
	return c.acct.Usage()
}

// kernelSlice is a created slice; its Limits, Chain, Stat, Usage, AddProc
// and Delete are cgroup.Slice's own.
type kernelSlice struct{ *cgroup.Slice }

func (s kernelSlice) Cgroup() cgroup.Cgroup { return s.Slice.Cgroup }

// startChild starts the workload child (see childproto.Start).
func startChild(exe string, cfg runspec.ClosedLoop, stderr io.Writer) (Child, error) {
	c, err := childproto.Start(exe, cfg, stderr)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// startOpen starts the open loop's child (see childproto.StartOpen).
func startOpen(exe string, o runspec.OpenLoop, stderr io.Writer) (OpenChild, error) {
	c, err := childproto.StartOpen(exe, o, stderr)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// newTracer attaches the eBPF throttle tracer, tracing no group yet (see
// tracer.New).
func newTracer(onEvent func(throttle.Event), onState func(throttle.State)) (tracewindow.Handle, error) {
	t, err := tracer.New(onEvent, onState)
	if err != nil {
		return nil, err
	}
	return t, nil
}
