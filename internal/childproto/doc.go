// Package childproto is the protocol between throttlebench and the workload
// child: a copy of the same binary, started with the hidden argument Arg,
// that runs the driver inside the slice while the parent stays outside it.
//
// Messages are JSON lines, one object each, with a "type" field; the child
// reads its stdin and writes its stdout, and its stderr is the parent's.
//
//	parent → child  {"type":"start","config":{…runspec.ClosedLoop…}}
//	parent → child  {"type":"go"}       once the child is inside the slice
//	child → parent  {"type":"warm"}     after the warm-up iterations
//	parent → child  {"type":"measure"}  once the parent has read the counters
//	child → parent  {"type":"result","result":{…bench.Result…}}
//	             or {"type":"error","kind":"…","error":"…"}
//
// The child says nothing before "go", so that not one operation runs
// outside the slice, and so that a parent still writing never waits on a
// child that is writing too. It re-reads its GOMAXPROCS default only after
// "go", because the Go runtime computed it from the cgroup the child
// started in.
//
// An instance (latency --instances) has an exchange of its own, after the
// same rule of not a word before go:
//
//	parent → child  {"type":"init","instance":{…bench.InstanceInit…}}
//	parent → child  {"type":"go"}       once the instance is inside its slice
//	child → parent  {"type":"ready","ready":{…}}   after its cold start
//	parent → child  {"type":"request","request":{"id":…,"work_ns":…,"wait_ns":…}}  (any number)
//	child → parent  {"type":"reply","reply":{"id":…,"start_ns":…,"end_ns":…,"cpu_ns":…}}  as each ends
//	             or {"type":"error",…}, which ends it
//
// The parent closing the instance's input retires it: the instance ends
// once the requests it holds are done. Its stamps are CLOCK_MONOTONIC, which
// the parent reads too.
//
// An error keeps its kind across the pipe: on the parent's side it is an
// *Error, and errors.Is matches it against ErrBadConfig (the configuration
// cannot run: an unknown workload, a parameter out of range),
// ErrWorkload (an operation failed), ErrInterrupted (the child was
// cancelled, or the parent hung up) or ErrProtocol (a message that is not
// JSON, of a type not expected there, or without its payload). The text is
// the child's own, so the user reads what the workload said.
//
// A malformed message ends the exchange: the child answers it with an
// error of kind protocol; the parent kills the child. A parent that closes
// the pipe early makes the child return without a reply: no one would
// read it.
//
// Beside the workload children it starts the other processes a run puts
// in a slice, and supervises them: a Server (latency --target --serve's
// server, sample -- CMD's command) is this binary as the exec shim
// (ExecArg), held until Go so that it is in its slice first, in a process
// group of its own, with SIGKILL when the thread that started it dies;
// Stop ends its group (SIGTERM, then SIGKILL after a grace), and Stderr
// keeps the end of what it wrote. The guard (GuardArg, StartGuard) is this
// binary again, outside the slice: told "done" once the run has stopped
// what it started, it exits; an end without it means the run died by
// SIGKILL, and it empties the slice so that cleanup can remove it.
package childproto

// Arg is the hidden command line argument that makes the binary a child.
const Arg = "__child"
