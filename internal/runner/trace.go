package runner

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// TraceHandle is a throttle tracer attached to a cgroup (tracer.Start):
// Stop detaches it, drains what it recorded and says how many events the
// kernel could not pass on. Attach names what it attached to.
type TraceHandle interface {
	Stop() (lost uint64, err error)
	Attach() string
}

// maxTraceEvents bounds the events a run keeps (32 bytes each): beyond it,
// they are only counted (throttle.Collector), as a long sample needs.
const maxTraceEvents = 1 << 20

// traceWindow records the throttle events of the measured cgroup over the
// measured window, from open to close, and turns them into the result's
// keys. Its zero value (nil) traces nothing: a run without --trace.
type traceWindow struct {
	h      TraceHandle
	why    error // why tracing did not start: said once, in the warnings
	mu     sync.Mutex
	col    throttle.Collector
	t0, t1 int64 // CLOCK_MONOTONIC, the measured window
	now    func() int64
	lost   uint64
	sink   func(throttle.Trace) error

	// The traced cgroup's family (itself, its descendants, its ancestors)
	// and their counters, read at open (start) and close (end), and each
	// group's last reading before its removal within the window (gone,
	// under mu): what each group's traced time is set against.
	dir        string
	family     func() ([]cgroup.Member, error)
	id         func(dir string) (uint64, error)
	start, end []cgroup.Member
	gone       []cgroup.Member
	famWhy     error // why the counters could not be read
}

// startTrace attaches the tracer to the cgroup at dir when o asks for it
// (--trace); where it cannot, the run goes on untraced and says why. It is
// called before the window opens: the attach is not measured.
func (k Local) startTrace(o Options, dir string) *traceWindow {
	if !o.Trace {
		return nil
	}
	tw := &traceWindow{col: throttle.Collector{Max: maxTraceEvents}, sink: o.TraceSink, now: k.Monotonic, dir: dir, id: k.CgroupID}
	if tw.now == nil {
		tw.now = bench.Monotonic
	}
	family := k.TraceFamily
	if family == nil {
		family = cgroup.Host.FamilyOf
	}
	tw.family = func() ([]cgroup.Member, error) { return family(o.Host, dir) }
	if tw.id == nil {
		tw.id = cgroup.DirID
	}
	if k.StartTrace == nil {
		tw.why = fmt.Errorf("this build cannot trace")
		return tw
	}
	tw.h, tw.why = k.StartTrace(dir, func(e throttle.Event) {
		tw.mu.Lock()
		tw.col.Add(e)
		tw.mu.Unlock()
	})
	return tw
}

// open marks the start of the measured window, and reads the counters of
// the traced cgroup's family just before.
func (tw *traceWindow) open() {
	if tw == nil {
		return
	}
	if tw.why == nil {
		tw.start, tw.famWhy = tw.family()
	}
	tw.t0 = tw.now()
}

// close marks its end, and reads the family's counters again just after;
// stop detaches the tracer and drains it, on every path (deferred), and
// may be called again.
func (tw *traceWindow) close() {
	if tw == nil || tw.t1 != 0 {
		return
	}
	tw.t1 = tw.now()
	if tw.why == nil && tw.famWhy == nil && tw.t0 != 0 {
		tw.end, tw.famWhy = tw.family()
	}
}

// counted keeps the counters st of a group below the traced cgroup (cg),
// read just before its removal within the window: an instance's slice,
// which close finds no more. Safe from any goroutine.
func (tw *traceWindow) counted(cg cgroup.Cgroup, st cgroup.CPUStat) {
	if tw == nil || !strings.HasPrefix(cg.Dir, tw.dir+"/") {
		return
	}
	id, err := tw.id(cg.Dir)
	if err != nil {
		return // its traced time stays unchecked, and the result says so
	}
	tw.mu.Lock()
	tw.gone = append(tw.gone, cgroup.Member{ID: id, Path: cg.Path, Relation: cgroup.RelDescendant, Stat: &st})
	tw.mu.Unlock()
}

// counters are each group's throttled time over the window, in ms.
func (tw *traceWindow) counters() []throttle.Counter {
	tw.mu.Lock()
	end := append(slices.Clone(tw.end), tw.gone...)
	tw.mu.Unlock()
	var out []throttle.Counter
	for _, c := range cgroup.FamilyOver(tw.start, end) {
		tc := throttle.Counter{ID: c.ID, Path: c.Path, Relation: c.Relation}
		if c.Throttled != nil {
			ms := float64(*c.Throttled) / float64(time.Millisecond)
			tc.CounterMs = &ms
		}
		out = append(out, tc)
	}
	return out
}

func (tw *traceWindow) stop() {
	if tw == nil || tw.h == nil {
		return
	}
	lost, err := tw.h.Stop()
	tw.h = nil
	tw.lost = lost
	if err != nil && tw.why == nil {
		tw.why = fmt.Errorf("stopping the tracer: %w", err)
	}
}

// events are the kept events, after stop.
func (tw *traceWindow) events() []throttle.Event {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.col.Events()
}

// summary stops the tracer and describes the window, each throttled
// group set against its own counter over it; the warnings are for the
// result. nil, with the reason as a warning, where nothing was traced.
func (tw *traceWindow) summary() (*report.ThrottleEvents, []string) {
	if tw == nil {
		return nil, nil
	}
	tw.close()
	tw.stop()
	if tw.why != nil {
		return nil, []string{fmt.Sprintf("throttle events not traced: %v; the run went on without them", tw.why)}
	}
	tw.mu.Lock()
	s := tw.col.Summarize(tw.lost, tw.t0, tw.t1)
	tw.mu.Unlock()
	if tw.famWhy != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("throttle events not set against cpu.stat: the counters of the traced cgroup "+
			"and the groups around it could not be read: %v", tw.famWhy))
		return &s, s.Warnings
	}
	throttle.Compare(&s, tw.counters())
	return &s, s.Warnings
}

// sinkTo hands the window, its events and spans to the sink, if any;
// what it could not write is a warning.
func (tw *traceWindow) sinkTo(spans []throttle.Span, what string) []string {
	if tw.sink == nil {
		return nil
	}
	if err := tw.sink(throttle.Trace{T0: tw.t0, T1: tw.t1, Events: tw.events(), Spans: spans, What: what}); err != nil {
		return []string{fmt.Sprintf("the trace could not be written: %v", err)}
	}
	return nil
}

// iterationSpans are the iterations on CLOCK_MONOTONIC.
func iterationSpans(its []bench.Iteration) []throttle.Span {
	spans := make([]throttle.Span, len(its))
	for i, it := range its {
		spans[i] = throttle.Span{Start: it.StartMono, End: it.StartMono + int64(it.Wall), CPU: -1}
	}
	return spans
}

// requests describes the requests the throttles hit: each request's
// overlap, from its scheduled arrival to its completion, with the union
// over CPUs of the throttled intervals.
func (tw *traceWindow) requests(spans []throttle.Span) *report.RequestThrottles {
	response := make([]int64, len(spans))
	for i, s := range spans {
		response[i] = s.End - s.Start
	}
	r := throttle.SummarizeRequests(response, throttle.Overlap(spans, tw.events()))
	return &r
}

// traceRun adds what the trace says to a run's report.
func (tw *traceWindow) traceRun(rep *report.Report, res bench.Result) {
	s, warnings := tw.summary()
	for _, w := range warnings {
		rep.AddWarning(w)
	}
	if s == nil {
		return
	}
	spans := iterationSpans(res.Iterations)
	rep.ThrottleEvents = s
	rep.ThrottledMsPerIteration = throttle.ThrottledMsPerIteration(spans, tw.events())
	for _, w := range tw.sinkTo(spans, "iteration") {
		rep.AddWarning(w)
	}
}

// traceLatency adds what the trace says to a latency report; spans are the
// completed requests' lives on CLOCK_MONOTONIC.
func (tw *traceWindow) traceLatency(rep *report.Latency, spans []throttle.Span) {
	s, warnings := tw.summary()
	for _, w := range warnings {
		rep.AddWarning(w)
	}
	if s == nil {
		return
	}
	rep.ThrottleEvents = s
	rep.RequestThrottles = tw.requests(spans)
	for _, w := range tw.sinkTo(spans, "request") {
		rep.AddWarning(w)
	}
}

// openLoopSpans are the open loop's completed requests on CLOCK_MONOTONIC.
func openLoopSpans(res bench.LatencyResult) []throttle.Span {
	spans := make([]throttle.Span, len(res.Requests))
	for i, r := range res.Requests {
		spans[i] = throttle.Span{Start: res.StartMono + int64(r.Arrival), End: res.StartMono + int64(r.Done), CPU: -1}
	}
	return spans
}

// TraceWindow is a trace of one cgroup over a window that is not a run's
// (sample --trace): Open and Close frame it, Summary ends it.
type TraceWindow struct{ tw *traceWindow }

// Trace attaches the tracer to the cgroup at dir (of the cpu hierarchy);
// where it cannot, Summary says why. sink, when set, gets the window's
// events (--trace-out).
func (l *Local) Trace(dir string, sink func(throttle.Trace) error) *TraceWindow {
	k := l.withDefaults()
	return &TraceWindow{k.startTrace(Options{Trace: true, TraceSink: sink}, dir)}
}

func (t *TraceWindow) Open()  { t.tw.open() }
func (t *TraceWindow) Close() { t.tw.close() }

// Stop detaches the tracer; Summary does too, and it may be called again.
func (t *TraceWindow) Stop() { t.tw.stop() }

// Summary describes the window, each throttled group against its own
// counter over it; the warnings are for the result.
func (t *TraceWindow) Summary() (*report.ThrottleEvents, []string) {
	s, warnings := t.tw.summary()
	if s != nil {
		warnings = append(warnings, t.tw.sinkTo(nil, "")...)
	}
	return s, warnings
}
