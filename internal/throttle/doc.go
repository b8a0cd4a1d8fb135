// Package throttle turns the kernel's throttle events into what a result
// says of them: when the traced cgroup's threads were held off a CPU by
// throttling, for how long, and which requests and iterations that hit.
// It touches no kernel interface: the events come from internal/tracer
// (eBPF) or from tests.
//
// records.go's Interpreter turns the tracer's raw records into held
// intervals, tested on synthetic and recorded streams (testdata/records)
// and fuzzed. timeline.go's Timelines cut each traced thread's life into
// on a CPU, held, waiting and off CPU, and split a span of it (a request,
// tied to its thread by Span.TID; an iteration, to its workers' by
// ThreadsParts): a new way to tie requests to threads sets those. Its JSON types are report's (report/throttle.go), aliased.
// Its one output of its own is the raw events' file (write.go, through
// internal/atomicfile).
package throttle
