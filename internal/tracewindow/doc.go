// Package tracewindow is --trace over a measured window: the tracer a
// list's runs share (Session: attached at the first traced run, detached
// at the end), each run's own groups tracked and untracked around their
// lives (Window: a slice, a cgroup with its descendants, or an instance's
// slices one by one), the family's throttled counters read just before
// and just after the window, and the events set against them into the
// result's keys (throttle_events, each iteration's or request's throttled
// time) and the sink (--trace-out).
//
// The runner makes a Window for each traced run (runner.Local's
// TraceGroup, TraceTracked, Trace) through its Tracing seams; the tracer
// itself is internal/tracer's, and what its events mean is
// internal/throttle's.
//
// What changes here: which groups a run traces, when the counters are
// read against the events, and what a traced window adds to a result.
package tracewindow
