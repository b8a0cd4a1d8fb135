// Package instances is the lifecycle of function instances (latency
// --instances) as a pure state machine: which instance a request goes to,
// when an instance starts, and when one is retired. It knows no processes,
// cgroups or clocks: the runner feeds it events (an arrival, an instance
// ready, a request done, an instance failed, the time passing) stamped with
// the time they happened, and carries out the actions it returns (start an
// instance, send a request to one, retire one, fail a request). Tests drive
// it with made-up times.
//
// Requests wait in one FIFO queue at the dispatcher until an instance can
// take them: a ready instance with fewer than Concurrency requests in
// flight. A request that no ready instance can take joins an instance that
// is starting and has room (up to Concurrency requests each), else starts
// one, up to Max alive at once, and then waits for that instance: a request
// that caused a cold start is served by it, as a function platform routes
// the request that made it start an instance, even when another instance
// frees up first. Only requests that found no room anywhere (Max reached)
// stay in the queue, for whichever instance frees first. The three
// policies of the issue are settings of the one machine:
//
//	per-request  Max MaxAlive, Concurrency 1 (AWS Lambda, Google Cloud Functions 1st gen)
//	shared       Max 1, Concurrency K        (one process serving everything)
//	pool:N       Max N, Concurrency K        (Azure Functions, Cloud Run)
//
// bill.go prices a run as function platforms bill it (Compute). It may not touch a process, a
// cgroup or a clock: times come in stamped.
package instances
