package plan

import (
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Modes of --cgroup.
const (
	ModeAuto    = "auto"
	ModeCreate  = "create"
	ModeCurrent = "current"
)

// Options describe one run. They are validated by the caller.
type Options struct {
	Bench   runspec.ClosedLoop // the closed loop (run, sweep)
	Open    runspec.OpenLoop   // the open loop (latency)
	Policy  string             // the --gomaxprocs value as given, for the report
	Mode    string             // ModeAuto, ModeCreate or ModeCurrent
	Version int                // cgroup version: 0 = whichever holds the cpu controller
	Parent  string             // where slices go; "" = the hierarchy's default
	// Limits to create the slice with; LimitsSet says the user asked for
	// some, so that auto mode must not quietly run without them.
	Limits    bandwidth.Limits
	LimitsSet bool
	// CPUs is the created slice's cpuset (--cpuset); nil for none.
	CPUs []int
	// Notes are what the caller found on its way (the systemd driver's
	// tidying of dead runs' scopes), for this result's warnings.
	Notes []report.Warning
	// Trace records the kernel's throttle events over the measured window
	// (--trace).
	Trace bool
}

// Target is latency --target's: the requests (URL, method, headers, body,
// the pool and the timeout per request) and where the server runs: --serve
// starts Serve in a slice of its own per configuration; without it the
// server runs already, in the cgroup Named (--cgroup PATH: read and traced,
// never written) or in none we know of ("": no counters).
type Target struct {
	HTTP       runspec.Request
	Serve      []string
	ServeReady time.Duration // how long the server may take to accept connections
	Named      string        // the --cgroup the user gave ("" for none)
}
