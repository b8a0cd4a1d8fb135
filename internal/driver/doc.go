// Package driver decides when a workload's operations run and measures
// them, in the process it is called in: inside the slice, in the workload
// child (internal/childproto), or in this process for --cgroup current.
//
// closedloop.go is today's only driver: iterations of batches on worker
// threads, each iteration starting the instant the previous one ended, so
// that the measure is how long a fixed amount of work takes under the
// limit. The open-loop driver of the latency work goes in a file beside it:
// operations arrive on a schedule fixed up front and each is timed from
// its scheduled start, so that a throttled stretch shows as queueing delay
// instead of being hidden by a sender that stalled with the workers.
package driver
