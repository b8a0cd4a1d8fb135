// Package bench decides when a workload's operations run and measures
// them, in the process it is called in: inside the slice, in the workload
// child (internal/childproto), or in this process for --cgroup current.
//
// closedloop.go runs iterations of batches on worker threads, each
// iteration starting the instant the previous one ended, so that the
// measure is how long a fixed amount of work takes under the limit.
//
// openloop.go is the latency driver: requests arrive on a schedule fixed up
// front (runspec.Schedule), each needs calibrated CPU work (calibrate.go), and
// each is timed from its scheduled arrival, so that a throttled stretch
// shows as queueing delay instead of being hidden by a sender that stalled
// with the workers. There is no generator thread: an idle worker claims
// the next arrival and waits on its own thread for its instant (a Go
// timer, then an absolute clock_nanosleep for the last 2 ms), so a request
// comes with one timer wake-up at its instant and no hand-off; arrivals
// that find every worker busy wait in a bounded queue.
// floor.go measures what that path costs before each run (the floor) and
// keeps the collector quiet in the window. Its clock (clock.go) is an
// interface, so its bookkeeping is tested in fake time.
//
// Invariants. The open loop's request path allocates nothing
// (TestRequestPathAllocatesNothing) and its window keeps Go's collector out
// (internal/quietgc). Workers are locked to their threads, but a lone
// compute worker runs unlocked (threads.go says why and when).
//
// It may not know about cgroups: the slice is the caller's. The closed
// loop's workloads come through decl.Spec and workload.Workload, their
// values as runspec.ClosedLoop.Params as they are; the open loop's CPU
// work is the spin workload's loop (workload.SpinLoop). What a run is
// asked to do is plain data in internal/runspec, below config.
package bench
