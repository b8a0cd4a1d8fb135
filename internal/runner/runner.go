// Package runner runs one benchmark configuration end to end and returns its
// report. Runner is what callers (run, sweep) depend on; Local is the runner
// on this machine: it finds or creates the cgroup, runs the workload in it (a
// child process inside a created slice, or this process in the current
// cgroup), reads the kernel's counters around it, and always removes what it
// created.
package runner

import (
	"context"
	"errors"
	"io"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// Runner runs one configuration and returns its report. An error leaves
// nothing behind that the runner created.
type Runner interface {
	Run(ctx context.Context, o Options) (*report.Report, error)
}

// Modes of --cgroup.
const (
	ModeAuto    = "auto"
	ModeCreate  = "create"
	ModeCurrent = "current"
)

// Options describe one run. They are validated by the caller.
type Options struct {
	Bench   bench.Config   // the closed loop (Run)
	Open    bench.OpenLoop // the open loop (Local.Latency)
	Policy  string         // the --gomaxprocs value as given, for the report
	Mode    string
	Version int    // cgroup version: 0 = whichever holds the cpu controller
	Parent  string // where slices go; "" = the hierarchy's default
	// Limits to create the slice with; LimitsSet says the user asked for
	// some, so that auto mode must not quietly run without them.
	Limits    cgroup.Limits
	LimitsSet bool
	// CPUs is the created slice's cpuset (--cpuset); nil for none.
	CPUs   []int
	Host   cgroup.Host
	Exe    string    // this binary, re-executed as the workload child
	Stderr io.Writer // notes for the user
	// Notes are what the caller found on its way (the systemd driver's
	// tidying of dead runs' scopes), for this result's warnings.
	Notes []string
	// Trace records the kernel's throttle events over the measured window
	// (--trace); TraceSink, when set, gets the window's events and spans
	// (--trace-out, --plot's timeline).
	Trace     bool
	TraceSink func(throttle.Trace) error
	// Target is latency --target's requests and server; nil for the
	// built-in workloads.
	Target *Target
}

// ErrNeedsPrivilege wraps a failure to create a slice for lack of rights.
// No later configuration of a sweep can do better, so it stops there; so
// does cgroup.ErrNoCPUController, which Run returns unwrapped.
var ErrNeedsPrivilege = errors.New("cannot create a cgroup slice")
