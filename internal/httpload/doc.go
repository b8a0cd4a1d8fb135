// Package httpload is an open-loop HTTP client: requests sent at the
// instants of a schedule fixed up front, over a bounded pool of keep-alive
// connections, each request's response time measured from its SCHEDULED
// arrival, so that a stalled server or a full pool cannot hide the wait
// (coordinated omission). Nothing is dropped: a request that finds every
// connection busy waits for one, and that wait is part of its time; every
// request ends with a response (its status counted by class), a timeout, a
// connection error or another failure, each counted, or, when the run is
// cancelled, as cancelled.
//
// There is no generator: the one idle worker that holds the dispatcher's
// lock claims the next arrival, sleeps until it (Clock; the default wakes
// on the kernel's high-resolution timer), sends the request itself and
// only then lets the next idle worker take the lock, so a request leaves
// with one wake-up and no hand-off between threads. A worker is a keep-alive
// connection: Connections of them, each opened before the first arrival
// and again after the server closes it (conn.go says why not net/http's
// Transport).
//
// Run is latency --target's client; Floor measures the harness's own cost
// against a null server of its own (StartNullServer). Its window keeps Go's
// collector out (internal/quietgc). It may not import the engine
// (internal/bench) or know about cgroups; BenchmarkVsVegeta measures it
// beside vegeta in `make bench`.
package httpload
