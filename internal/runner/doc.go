// Package runner runs one benchmark configuration end to end on this
// machine and returns its report, and is the core the other engines stand
// on. Runner is what callers (run, sweep) depend on; Local is the runner
// on this machine.
//
// The core, written once:
//   - the slice's place (slices.go: where a run's slices go, found,
//     checked and tidied before any is made; inCgroup and InSlice make one,
//     run the engine in it and remove it on every path, then the default
//     parent once empty; Place for an engine that makes many);
//   - the measured Window (window.go: RunWindow reads cpu.stat, the
//     machine's CPU times, the cgroup's usage and this process's CPU time
//     just before the measured part and again just after, samples the
//     workload's 100 ms peak in between, and returns what changed);
//   - the trace window (trace.go: one tracer per Local, attached at its
//     first traced run and shared by a list's runs; the window itself, in
//     which each run tracks only its own groups and sets each group's
//     traced time against its own counter, is internal/tracewindow's);
//   - the window's waits (internal/waits, read through Machine.WaitsOf).
//
// Its own engines are the closed loop (Local.Run) and the open loop
// (Local.Latency), each in a workload child inside a created slice
// (childproto), or in this process in the current cgroup, and Watch
// (sample -- CMD). latency --instances (internal/fleet) and latency
// --target (internal/target) are engines of their own on the same core.
//
// A run's Options are its plan (internal/plan: plain data, what a sweep's
// steps hold) and its Env (the host, this binary, the stderr, the trace
// sink): Bind turns an engine into a runner of plans.
//
// Invariants: an error leaves nothing behind that the runner created;
// nothing here prints: what a run found on its way is a warning in its
// result; the real kernel is reached only through Local's seams
// (seams.go: Machine, ClosedLoop, OpenLoop, Tracing, Commands), which
// tests replace, fields and not package variables.
package runner
