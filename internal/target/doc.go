// Package target is latency --target's engine: requests sent on the open
// loop's schedule (internal/httpload) to an HTTP server, measured from each
// request's scheduled arrival. With --serve, the server is started
// (childproto.Server) in a slice of its own per configuration, guarded
// (childproto.StartGuard) against a SIGKILLed run, waited for until its
// own socket listens on the target's port (another process's listener
// fails the run, named: it would be measured instead), and stopped before
// the slice goes; {port} picks a free port per configuration. Without it,
// the server runs already, in the cgroup --cgroup PATH names (read and
// traced, never written) or in none known (no counters, said in a warning).
//
// It stands on the runner's core: runner.InSlice for the slice's place
// (made, removed on every path), runner.RunWindow for the measured window
// (the group's cpu.stat, the server's CPU time and its 100 ms peak, the
// machine's background with the client counted as ours), and
// runner.Local.TraceGroup (a tracewindow.Window) for --trace. The client's own floor is measured
// first, before the server takes any CPU.
//
// Its test seams are Engine's fields; nothing here prints: a server that
// exited during the run, or left processes in its slice, is a warning in
// the result, and one that never became ready an error with the end of
// its stderr.
package target
