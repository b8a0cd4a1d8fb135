package usage

import (
	"time"

	"github.com/throttlebench/throttlebench/internal/config"
)

// Bounds of sample's flags: below 1 ms the reading itself (tens of µs) and
// the timer's lateness are a large part of an interval; a day of 10 ms
// intervals is already 8.6 million values.
const (
	MinInterval  = time.Millisecond
	MaxInterval  = 10 * time.Second
	MaxDuration  = 24 * time.Hour
	MaxLimitCPUs = config.MaxCPUs
)

// Options are what sample's flags resolve to (options.Sample.Resolve).
type Options struct {
	Interval, Duration time.Duration // Duration 0: until interrupted
	Limit, Target      float64       // CPUs (0: none); a fraction
	// Period is the CFS period the advice is for: the kernel caps a burst
	// at the quota per period.
	Period time.Duration
	// The cgroup sampled: PID's (above 0), or Cgroup (its directory or its
	// path), or else the current one.
	Cgroup         string
	PID            int
	Format, Output string
	Plot           string // .svg or .png; "" for none
	// Trace records the kernel's throttle events of the sampled cgroup
	// (--trace, or --trace-out, which writes them).
	Trace    bool
	TraceOut string
	// Command is started in a slice of its own and that slice sampled,
	// until it exits (sample -- CMD); nil for none.
	Command []string
	// PIDGiven is --pid as given, for its errors ("" without one).
	PIDGiven string
}
