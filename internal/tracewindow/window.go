package tracewindow

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

// Handle is the throttle tracer a Session attaches once for all its
// windows (tracer.New), tracing no group until Track: each run tracks
// its own groups, and untracks them before it removes them, so that one
// attach serves a whole sweep, list or --instances run, and a run sees no
// other run's groups. Sync hands on what the kernel recorded so far;
// LostSoFar counts what it could not keep so far; Stop detaches it.
type Handle interface {
	Track(id uint64) error
	Untrack(id uint64) error
	Sync() error
	LostSoFar() uint64
	// StatesLostSoFar counts the threads' changes of state it could not
	// keep so far (a gap in a timeline).
	StatesLostSoFar() uint64
	Stop() (lost uint64, err error)
	Attach() string
	// HoldEnds is where the tracer ends a hold here
	// (throttle.EndsUnthrottle, EndsQueueClock, EndsUpperBound).
	HoldEnds() string
}

// maxEvents bounds the events a run keeps (32 bytes each): beyond it,
// they are only counted (throttle.Collector), as a long sample needs.
const maxEvents = 1 << 20

// maxStates bounds the threads' changes of state a run keeps (24 bytes
// each), for the breakdown of its requests: a thread switching 10,000
// times a second fills it in about 100 s. Beyond it, the breakdown says
// it is incomplete.
const maxStates = 1 << 21

// NewTracer attaches a tracer tracing no group yet, which hands each held
// interval to onEvent and each traced thread's change of state to
// onState (tracer.New).
type NewTracer func(onEvent func(throttle.Event), onState func(throttle.State)) (Handle, error)

// Session is the tracer a runner's traced runs share (runner.Local's),
// attached at its first window and kept until Stop: the events go to the
// window open now (one at a time). Its zero value is ready.
type Session struct {
	mu       sync.Mutex
	h        Handle
	why      error // why it could not attach: no later run tries again
	attaches int
	sink     func(throttle.Event) // the open window's; nil between windows
	states   func(throttle.State) // the same for the threads' states
}

// tracer attaches the tracer on the first call (newTracer); later calls
// return the same one, and the attaches so far.
func (s *Session) tracer(newTracer NewTracer) (Handle, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == nil && s.why == nil {
		if newTracer == nil {
			s.why = fmt.Errorf("this build cannot trace")
		} else if s.h, s.why = newTracer(s.deliver, s.deliverState); s.why == nil {
			s.attaches++
		}
	}
	return s.h, s.attaches, s.why
}

// deliver hands an event to the open window, if any (the tracer's
// goroutine, or Stop).
func (s *Session) deliver(e throttle.Event) {
	s.mu.Lock()
	sink := s.sink
	s.mu.Unlock()
	if sink != nil {
		sink(e)
	}
}

// deliverState hands a thread's change of state to the open window.
func (s *Session) deliverState(st throttle.State) {
	s.mu.Lock()
	sink := s.states
	s.mu.Unlock()
	if sink != nil {
		sink(st)
	}
}

func (s *Session) setSink(f func(throttle.Event), g func(throttle.State)) {
	s.mu.Lock()
	s.sink, s.states = f, g
	s.mu.Unlock()
}

// Stop detaches the tracer, if attached; a later traced run attaches again.
func (s *Session) Stop() (uint64, error) {
	s.mu.Lock()
	h := s.h
	s.h, s.why = nil, nil
	s.mu.Unlock()
	if h == nil {
		return 0, nil
	}
	return h.Stop()
}

// Window records the throttle events of a run's own groups over the
// measured window, from Open to Close, and turns them into the result's
// keys. A nil Window traces nothing: a run without --trace.
type Window struct {
	s      *Session
	h      Handle
	why    error // why tracing did not start: said once, in the warnings
	mu     sync.Mutex
	col    throttle.Collector
	t0, t1 int64 // CLOCK_MONOTONIC, the measured window
	now    func() int64
	lost0  uint64 // the tracer's losses at open
	lost   uint64
	// The traced threads' changes of state, kept up to maxStates (the
	// others counted), and those the tracer lost over the window.
	states              []throttle.State
	statesNotKept       int
	states0, statesLost uint64
	attaches            int
	stopped             bool
	last                bool // stop the tracer at the window's end (sample: its one window)
	sink                func(throttle.Trace) error

	// The run's own groups (Config.Dir, FamDir): ids kept in own after
	// their Untrack.
	dir            string
	own            map[uint64]bool
	tracked        map[string]uint64 // tracked now, by directory
	trackErr       error
	family         func() ([]cgroup.Member, error)
	id             func(dir string) (uint64, error)
	start, end     []cgroup.Member
	gone           []cgroup.Member
	famWhy         error // why the counters could not be read
	emptyStretches func() bool
	model          func() string
}

// Config is what a window reads through (runner.Tracing's seams, bound to
// one run).
type Config struct {
	// Dir is the traced cgroup, with its descendants (a run's slice, the
	// current cgroup, a named one); where it is "", the groups are tracked
	// one by one (Track: an instance's slice as it is made). FamDir is the
	// cgroup whose family is read: Dir, or the instances' parent, of which
	// only the ancestors and the run's own slices are kept (other runs'
	// slices share the default parent).
	Dir, FamDir string
	// NewTracer attaches the session's tracer, at its first window.
	NewTracer NewTracer
	// Now reads CLOCK_MONOTONIC, the clock of the events; ID is a
	// cgroup's kernfs id; Family reads the family of the cgroup at a
	// directory and its counters (cgroup.Host.FamilyOf).
	Now    func() int64
	ID     func(dir string) (uint64, error)
	Family func(dir string) ([]cgroup.Member, error)
	// EmptyStretches says whether the kernel's throttled counters count
	// stretches no thread waited through (tracer.CountsEmptyStretches).
	EmptyStretches func() bool
	// Model is the kernel's throttle model (tracer.Model), which the
	// summary records.
	Model func() string
	// Sink, when set, gets the window's events and spans (--trace-out).
	Sink func(throttle.Trace) error
	// Last says the window is the session's last (sample: its one window):
	// its Stop detaches the tracer, which ends the holds open then.
	Last bool
	// States keeps the traced threads' changes of state, from which the
	// window's requests or iterations are split by cause; without it
	// (sample) none is kept.
	States bool
}

// New is a window of s's tracer, attaching it if this is its first
// window (nil s: a session of this window alone); where it cannot attach,
// the run goes on untraced and its summary says why. It traces no group
// until Track.
func New(s *Session, c Config) *Window {
	tw := &Window{col: throttle.Collector{Max: maxEvents}, sink: c.Sink, now: c.Now, dir: c.Dir, id: c.ID,
		own: map[uint64]bool{}, tracked: map[string]uint64{}, s: s, emptyStretches: c.EmptyStretches, model: c.Model, last: c.Last}
	tw.family = func() ([]cgroup.Member, error) {
		fam, err := c.Family(c.FamDir)
		return tw.ownFamily(fam), err
	}
	if tw.s == nil {
		tw.s = &Session{}
		tw.last = true
	}
	tw.h, tw.attaches, tw.why = tw.s.tracer(c.NewTracer)
	if tw.why != nil {
		return tw
	}
	tw.lost0, tw.states0 = tw.h.LostSoFar(), tw.h.StatesLostSoFar()
	tw.s.setSink(func(e throttle.Event) {
		tw.mu.Lock()
		tw.col.Add(e)
		tw.mu.Unlock()
	}, func(st throttle.State) {
		if !c.States {
			return
		}
		tw.mu.Lock()
		if len(tw.states) < maxStates {
			tw.states = append(tw.states, st)
		} else {
			tw.statesNotKept++
		}
		tw.mu.Unlock()
	})
	return tw
}

// ownFamily is the part of a family read that is the run's: everything
// where the run traces a cgroup whole; else the ancestors (the parent
// among them) and the groups it tracked.
func (tw *Window) ownFamily(fam []cgroup.Member) []cgroup.Member {
	if tw.dir != "" {
		return fam
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	var out []cgroup.Member
	for _, m := range fam {
		switch {
		case m.Relation == cgroup.RelTarget:
			m.Relation = cgroup.RelAncestor // the parent: its other children are not the run's
		case m.Relation == cgroup.RelDescendant && !tw.own[m.ID]:
			continue
		}
		out = append(out, m)
	}
	return out
}

// Track adds the cgroup at dir (and its descendants) to what the tracer
// follows; a group it could not add is said in the warnings.
func (tw *Window) Track(dir string) {
	if tw == nil || tw.h == nil {
		return
	}
	id, err := tw.id(dir)
	if err == nil {
		err = tw.h.Track(id)
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if err != nil {
		if tw.trackErr == nil {
			tw.trackErr = err
		}
		return
	}
	tw.own[id] = true
	tw.tracked[dir] = id
}

// GroupOf is the id of the cgroup at dir, tracked (the group its
// threads' states carry, which pools them: throttle.Span's Group); 0
// where it is not tracked.
func (tw *Window) GroupOf(dir string) uint64 {
	if tw == nil {
		return 0
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.tracked[dir]
}

// Untrack takes the cgroup at dir off what the tracer follows: after its
// counters' last read, before its removal.
func (tw *Window) Untrack(dir string) {
	if tw == nil || tw.h == nil {
		return
	}
	tw.mu.Lock()
	id, ok := tw.tracked[dir]
	delete(tw.tracked, dir)
	tw.mu.Unlock()
	if ok {
		tw.h.Untrack(id)
	}
}

// Open marks the start of the measured window, and reads the counters of
// the traced cgroup's family just before.
func (tw *Window) Open() {
	if tw == nil {
		return
	}
	if tw.why == nil {
		tw.start, tw.famWhy = tw.family()
	}
	tw.t0 = tw.now()
}

// Close marks its end, and reads the family's counters again just after;
// Stop detaches the tracer and drains it, on every path (deferred), and
// may be called again.
func (tw *Window) Close() {
	if tw == nil || tw.t1 != 0 {
		return
	}
	tw.t1 = tw.now()
	if tw.why == nil && tw.famWhy == nil && tw.t0 != 0 {
		tw.end, tw.famWhy = tw.family()
	}
}

// Counted keeps the counters st of a group of the run's below the traced
// cgroup or tracked (cg), read just before its removal within the window:
// an instance's slice, which Close finds no more. Safe from any goroutine.
func (tw *Window) Counted(cg cgroup.Cgroup, st cgroup.CPUStat) {
	if tw == nil {
		return
	}
	id, err := tw.id(cg.Dir)
	if err != nil {
		return // its traced time stays unchecked, and the result says so
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if !tw.own[id] && (tw.dir == "" || !strings.HasPrefix(cg.Dir, tw.dir+"/")) {
		return
	}
	tw.gone = append(tw.gone, cgroup.Member{ID: id, Path: cg.Path, Relation: cgroup.RelDescendant, Stat: &st})
}

// counters are each group's throttled time over the window, in ms.
func (tw *Window) counters() []throttle.Counter {
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

// Stop ends the window's part in the tracer, on every path (deferred),
// and may be called again: what the kernel recorded until now is read
// (Sync), the groups still tracked are untracked, and the events stop
// coming here. The tracer stays attached for the session's next window
// (Session.Stop detaches it); where the window is the last (Config.Last),
// it is detached here, which ends the holds still open as ending now.
func (tw *Window) Stop() {
	if tw == nil || tw.h == nil || tw.stopped {
		return
	}
	tw.stopped = true
	var err error
	tw.statesLost = tw.h.StatesLostSoFar() - tw.states0
	if tw.last {
		tw.lost, err = tw.s.Stop()
		tw.mu.Lock()
		clear(tw.tracked) // gone with the tracer
		tw.mu.Unlock()
	} else {
		err = tw.h.Sync()
		tw.lost = tw.h.LostSoFar() - tw.lost0
	}
	tw.mu.Lock()
	dirs := make([]string, 0, len(tw.tracked))
	for dir := range tw.tracked {
		dirs = append(dirs, dir)
	}
	tw.mu.Unlock()
	for _, dir := range dirs {
		tw.Untrack(dir)
	}
	tw.s.setSink(nil, nil)
	if err != nil && tw.why == nil {
		tw.why = fmt.Errorf("stopping the tracer: %w", err)
	}
}

// events are the kept events, after Stop.
func (tw *Window) events() []throttle.Event {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.col.Events()
}

// summary stops the tracer and describes the window, each throttled
// group set against its own counter over it; the warnings are for the
// result. nil, with the reason as a warning, where nothing was traced.
func (tw *Window) summary() (*report.ThrottleEvents, []report.Warning) {
	if tw == nil {
		return nil, nil
	}
	tw.Close()
	tw.Stop()
	if tw.why != nil {
		return nil, []report.Warning{report.Warn(report.KindTraceIncomplete, "throttle events not traced: %v; the run went on without them", tw.why)}
	}
	tw.mu.Lock()
	s := tw.col.Summarize(tw.lost, tw.t0, tw.t1)
	trackErr := tw.trackErr
	tw.mu.Unlock()
	s.Attaches = tw.attaches
	if tw.model != nil {
		s.Model = tw.model()
	}
	if tw.h != nil {
		s.HoldEnds = tw.h.HoldEnds()
	}
	if s.HoldEnds == throttle.EndsUpperBound {
		s.Warnings = append(s.Warnings, report.Warn(report.KindTraceUpperBound, "the traced throttled time is an upper bound: this kernel "+
			"keeps no throttled clock per run queue (before 6.6) and let the tracer hook neither throttle_cfs_rq nor unthrottle_cfs_rq "+
			"(fentry or kprobe), so a hold ends no later than its group's next run on that CPU, which comes late on a busy CPU"))
	}
	if trackErr != nil {
		s.Warnings = append(s.Warnings, report.Warn(report.KindTraceIncomplete, "throttle events of some of the run's groups not traced: %v", trackErr))
	}
	if tw.famWhy != nil {
		s.Warnings = append(s.Warnings, report.Warn(report.KindTraceUnchecked, "throttle events not set against cpu.stat: the counters of the traced cgroup "+
			"and the groups around it could not be read: %v", tw.famWhy))
		return &s, s.Warnings
	}
	throttle.Compare(&s, tw.counters(), tw.emptyStretches())
	return &s, s.Warnings
}

// sinkTo hands the window, its events and spans to the sink, if any;
// what it could not write is a warning.
func (tw *Window) sinkTo(spans []throttle.Span, what string, parts []throttle.Parts, known []bool) []report.Warning {
	if tw.sink == nil {
		return nil
	}
	tr := throttle.Trace{T0: tw.t0, T1: tw.t1, Events: tw.events(), Spans: spans, What: what, Parts: parts, Known: known}
	if err := tw.sink(tr); err != nil {
		return []report.Warning{report.Warn(report.KindTraceIncomplete, "the trace could not be written: %v", err)}
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
// Each request's time is split by cause (parts; known false where its
// thread was not traced), for the breakdown and the sink.
func (tw *Window) requests(spans []throttle.Span, threads string) (*report.RequestThrottles, []throttle.Parts, []bool) {
	response := make([]int64, len(spans))
	for i, s := range spans {
		response[i] = s.End - s.Start
	}
	events := tw.events()
	r := throttle.SummarizeRequests(response, throttle.Overlap(spans, events))
	parts, known := tw.split(spans, events)
	r.Breakdown = throttle.SummarizeBreakdown(parts, known, threads)
	return &r, parts, known
}

// split splits each span's time by cause, from its thread's states and
// held intervals; nil where the tracer gave no thread's states.
func (tw *Window) split(spans []throttle.Span, events []throttle.Event) ([]throttle.Parts, []bool) {
	states := tw.statesNow()
	if len(states) == 0 {
		return nil, nil
	}
	return throttle.NewTimelines(states, events, tw.queued()).SpanParts(spans)
}

// queued says the kernel throttles whole run queues (before 6.18): a
// thread waiting in a throttled queue is held with the one switched out
// (throttle.NewTimelines).
func (tw *Window) queued() bool {
	return tw.model != nil && tw.model() != throttle.ModelTask
}

// statesNow are the threads' changes of state kept so far.
func (tw *Window) statesNow() []throttle.State {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.states
}

// breakdownWarnings say why a breakdown may be wrong: changes of state
// lost by the kernel or not kept here leave gaps in the threads'
// timelines; requests whose thread was not traced are not split.
func (tw *Window) breakdownWarnings(b *report.Breakdown, what string, spans int, split bool) []report.Warning {
	if b == nil {
		if split && spans > 0 {
			// States were traced, and none of the spans' threads was
			// among them.
			b = &report.Breakdown{Unknown: spans}
		} else {
			return nil
		}
	}
	var out []report.Warning
	tw.mu.Lock()
	lost, notKept := tw.statesLost, tw.statesNotKept
	tw.mu.Unlock()
	if lost > 0 || notKept > 0 {
		out = append(out, report.Warn(report.KindTraceIncomplete, "the breakdown of %s by cause may be wrong: %d of the "+
			"threads' switches and wake-ups were lost to a full ring buffer and %d not kept (more than %d), leaving gaps in "+
			"their timelines", what, lost, notKept, maxStates))
	}
	if b.Unknown > 0 {
		out = append(out, report.Warn(report.KindTraceIncomplete, "%d of %d %s not broken down by cause: no switch of "+
			"a thread that served them was traced (a thread in another PID namespace than throttlebench's, or not in the traced "+
			"cgroup), or a worker changed threads", b.Unknown, b.Unknown+b.Count, what))
	}
	return out
}

// Run adds what the trace says to a run's report.
func (tw *Window) Run(rep *report.Report, res bench.Result) {
	s, warnings := tw.summary()
	for _, w := range warnings {
		rep.AddWarning(w)
	}
	if s == nil {
		return
	}
	spans := iterationSpans(res.Iterations)
	events := tw.events()
	rep.ThrottleEvents = s
	rep.ThrottledMsPerIteration = throttle.ThrottledMsPerIteration(spans, events)
	var parts []throttle.Parts
	var known []bool
	if states := tw.statesNow(); len(states) > 0 {
		tl := throttle.NewTimelines(states, events, tw.queued())
		if rep.Config.Workload == "command" {
			// A command's run: its threads, whichever they are, as one
			// (the workload child that started it waits off CPU).
			for i := range spans {
				spans[i].Group = throttle.AnyGroup
			}
			parts, known = tl.SpanParts(spans)
			rep.Breakdown = throttle.SummarizeBreakdown(parts, known, throttle.ThreadsCommand)
		} else {
			threads := make([][]int32, len(res.Iterations))
			for i, it := range res.Iterations {
				for _, w := range it.Workers {
					threads[i] = append(threads[i], w.TID)
				}
			}
			parts, known = tl.ThreadsParts(spans, threads)
			rep.Breakdown = throttle.SummarizeBreakdown(parts, known, throttle.ThreadsWorkers)
		}
		for _, w := range tw.breakdownWarnings(rep.Breakdown, "iterations", len(spans), parts != nil) {
			rep.AddWarning(w)
		}
	}
	for _, w := range tw.sinkTo(spans, "iteration", parts, known) {
		rep.AddWarning(w)
	}
}

// Latency adds what the trace says to a latency report; spans are the
// completed requests' lives on CLOCK_MONOTONIC, tied to their threads as
// threads says (throttle.ThreadsWorker, ...).
func (tw *Window) Latency(rep *report.Latency, spans []throttle.Span, threads string) {
	s, warnings := tw.summary()
	for _, w := range warnings {
		rep.AddWarning(w)
	}
	if s == nil {
		return
	}
	rep.ThrottleEvents = s
	var parts []throttle.Parts
	var known []bool
	rep.RequestThrottles, parts, known = tw.requests(spans, threads)
	for _, w := range tw.breakdownWarnings(rep.RequestThrottles.Breakdown, "requests", len(spans), parts != nil) {
		rep.AddWarning(w)
	}
	for _, w := range tw.sinkTo(spans, "request", parts, known) {
		rep.AddWarning(w)
	}
}

// OpenLoopSpans are the open loop's completed requests on CLOCK_MONOTONIC.
func OpenLoopSpans(res bench.LatencyResult) []throttle.Span {
	spans := make([]throttle.Span, len(res.Requests))
	for i, r := range res.Requests {
		spans[i] = throttle.Span{Start: res.StartMono + int64(r.Arrival), End: res.StartMono + int64(r.Done), CPU: -1, TID: r.TID}
	}
	return spans
}

// Summary describes a window that is not a run's (sample --trace), each
// throttled group against its own counter over it, and hands its events
// to the sink; the warnings are for the result.
func (tw *Window) Summary() (*report.ThrottleEvents, []report.Warning) {
	s, warnings := tw.summary()
	if s != nil {
		warnings = append(warnings, tw.sinkTo(nil, "", nil, nil)...)
	}
	return s, warnings
}
