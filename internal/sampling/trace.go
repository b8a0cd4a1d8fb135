package sampling

import (
	"fmt"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cgroupref"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// sampleTrace is sample --trace: the tracer on the sampled cgroup's place in
// the cpu hierarchy (where the kernel throttles it; on v1 the cgroup named
// may be cpuacct's); the window reads the counters it is set against.
type sampleTrace struct {
	w   *tracewindow.Window
	cpu cgroup.Cgroup
	why string
}

func startTrace(r usage.Options, cg cgroup.Cgroup) *sampleTrace {
	if !r.Trace {
		return nil
	}
	t := &sampleTrace{}
	var err error
	if t.cpu, err = cgroupref.CPU(cgroup.Host{Root: "/"}, cg.Version, cg.Path); err != nil {
		t.why = fmt.Sprintf("throttle events not traced: the cgroup %s has no place in a cpu hierarchy: %v", cg.Path, err)
		return t
	}
	var sink func(throttle.Trace) error
	if r.TraceOut != "" {
		sink = func(tr throttle.Trace) error { return throttle.EventsFile(r.TraceOut, tr) }
	}
	t.w = runner.NewLocal().Trace(t.cpu.Dir, sink)
	t.w.Open()
	return t
}

func (t *sampleTrace) stop() {
	if t != nil && t.w != nil {
		t.w.Stop()
	}
}

func (t *sampleTrace) summary() (*report.ThrottleEvents, []report.Warning) {
	switch {
	case t == nil:
		return nil, nil
	case t.w == nil:
		return nil, []report.Warning{{Kind: report.KindTraceIncomplete, Text: t.why}}
	}
	t.w.Close()
	return t.w.Summary()
}
