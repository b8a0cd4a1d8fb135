package runner

import (
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
)

// A Local's trace windows (--trace; internal/tracewindow), made through
// its Tracing seams in its one tracer session.

// session is l's tracer session, made on first use.
func (l *Local) session() *tracewindow.Session {
	if l.ts == nil {
		l.ts = &tracewindow.Session{}
	}
	return l.ts
}

// Close detaches the tracer the traced runs attached (--trace), if any:
// the command defers it, so that no BPF program stays loaded on any way
// out. The Local may run again after it (attaching again).
func (l *Local) Close() error {
	if l.ts == nil {
		return nil
	}
	_, err := l.ts.Stop()
	return err
}

// newTraceWindow is nil where o does not ask for --trace; a Local used by
// value (no session) has a session of this window alone. states: keep the
// threads' states, for a breakdown of the window's requests or
// iterations by cause.
func (k Local) newTraceWindow(o Options, dir, famDir string, last, states bool) *tracewindow.Window {
	if !o.Trace {
		return nil
	}
	tr := k.Tracing.withDefaults()
	c := tracewindow.Config{Dir: dir, FamDir: famDir, NewTracer: tr.NewTracer, Now: tr.Monotonic, ID: tr.CgroupID,
		EmptyStretches: tr.CountsEmptyStretches, Model: tr.Model, Sink: o.TraceSink, Last: last, States: states}
	c.Family = func(dir string) ([]cgroup.Member, error) { return tr.TraceFamily(o.Host, dir) }
	return tracewindow.New(k.ts, c)
}

// Trace is a trace window for a caller outside this package, of one
// cgroup over a window that is not a run's (sample --trace: Open and
// Close frame it, Summary ends it): it attaches the tracer to the cgroup
// at dir (of the cpu hierarchy); where it cannot, Summary says why. sink,
// when set, gets the window's events (--trace-out). The window is its
// tracer's last: the holds open at its end end with it.
func (l *Local) Trace(dir string, sink func(throttle.Trace) error) *tracewindow.Window {
	l.session()
	k := l.withDefaults()
	tw := k.newTraceWindow(Options{Options: plan.Options{Trace: true}, Env: Env{TraceSink: sink}}, dir, dir, true, false)
	tw.Track(dir)
	return tw
}

// TraceGroup is a trace window (--trace; nil, tracing nothing, without)
// of the cgroup at dir and its descendants, attaching the Local's tracer
// if this is its first traced run; where it cannot, the run goes on
// untraced and its result says why. It is called before the window
// opens: the attach is not measured.
func (k Local) TraceGroup(o Options, dir string) *tracewindow.Window {
	tw := k.newTraceWindow(o, dir, dir, false, true)
	tw.Track(dir)
	return tw
}

// TraceTracked is a trace window (--trace; nil, tracing nothing, without)
// that traces nothing yet: the groups are tracked one by one (Track), and
// parent is where they are made (--instances: a request is split by
// cause over its instance's threads, tracewindow.Window.GroupOf).
func (k Local) TraceTracked(o Options, parent string) *tracewindow.Window {
	return k.newTraceWindow(o, "", parent, false, true)
}
