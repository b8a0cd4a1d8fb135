package runspec

import "time"

// OpenLoop configures an open-loop run. It crosses the child pipe as JSON.
// Its values are checked by the config layer; bench.RunOpenLoop only guards
// against hanging or panicking on edge values.
type OpenLoop struct {
	Rate     float64 `json:"rate"`     // mean requests per second
	Arrivals string  `json:"arrivals"` // one of ArrivalKinds
	// On and Off shape ArrivalsOnOff: a cycle is On+Off long, and its
	// requests (Rate × cycle) are spread evenly over On.
	On  time.Duration `json:"on_ns"`
	Off time.Duration `json:"off_ns"`
	// Work is the CPU time a request needs, realised as calibrated loop
	// iterations so that a throttled stretch lengthens it in wall time as
	// it would real work; Wait is a sleep after it, like waiting on I/O.
	Work time.Duration `json:"work_ns"`
	Wait time.Duration `json:"wait_ns"`
	// Workers serve requests, each on its own OS thread. Fewer than 1 is
	// read as 1.
	Workers int `json:"workers"`
	// Queue is how many requests may wait for a worker, besides the ones
	// being served. 0 means none: a request that arrives while every worker
	// is busy is dropped. Dropped requests are counted, never hidden.
	Queue    int           `json:"queue"`
	Duration time.Duration `json:"duration_ns"` // how long arrivals are generated
	Seed     uint64        `json:"seed"`        // decides a poisson schedule
	// Count is ArrivalsOnce's number of requests, all at the start.
	Count int `json:"count,omitempty"`
	// Instances, when set, serves the schedule with instances in slices of
	// their own, dispatched by the parent, rather than with Workers in one
	// slice (latency --instances).
	Instances *Instances `json:"instances,omitempty"`
	// GOMAXPROCS: > 0 sets it; 0 keeps the Go runtime's own cgroup-aware default.
	GOMAXPROCS int `json:"gomaxprocs"`
	// Spans asks for every completed request's scheduled arrival and
	// completion (bench.LatencyResult.Requests), to tie throttle events to the
	// requests they slowed (--trace).
	Spans bool `json:"spans,omitempty"`
	// NoFloor skips the harness's floor (bench.LatencyResult.Floor nil): size
	// measures it in its unlimited arm only, as it is the harness's and the
	// same at every limit, where it would cost each window a second.
	NoFloor bool `json:"no_floor,omitempty"`
}

// Onoff says whether the schedule is on/off, where On and Off mean something.
func (o OpenLoop) Onoff() bool { return o.Arrivals == ArrivalsOnOff }
