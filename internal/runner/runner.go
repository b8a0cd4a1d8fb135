package runner

import (
	"context"
	"errors"
	"io"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// Runner runs one configuration and returns its report. An error leaves
// nothing behind that the runner created.
type Runner interface {
	Run(ctx context.Context, o Options) (*report.Report, error)
}

// Modes of --cgroup: plan's.
const (
	ModeAuto    = plan.ModeAuto
	ModeCreate  = plan.ModeCreate
	ModeCurrent = plan.ModeCurrent
)

// Options are one planned run made runnable here: what the plan says and
// what this machine and this invocation add to it.
type Options struct {
	plan.Options
	Env
}

// Env is what a run takes from this invocation rather than from its plan:
// the same for every step of a sweep or a list.
type Env struct {
	Host   cgroup.Host
	Exe    string    // this binary, re-executed as the workload child
	Stderr io.Writer // the children's stderr
	// TraceSink, when set, gets a traced window's events and spans
	// (--trace-out, --plot's timeline).
	TraceSink func(throttle.Trace) error
}

// ErrNeedsPrivilege wraps a failure to create a slice for lack of rights.
// No later configuration of a sweep can do better, so it stops there; so
// does cgroup.ErrNoCPUController, which Run returns unwrapped.
var ErrNeedsPrivilege = errors.New("cannot create a cgroup slice")

// Bind is an engine (Local.Run, Local.Latency, Fleet.Run) as a runner of
// plans, each run with env: what a sweep's loop takes.
func Bind[R any](env Env, run func(context.Context, Options) (R, error)) func(context.Context, plan.Options) (R, error) {
	return func(ctx context.Context, p plan.Options) (R, error) {
		return run(ctx, Options{Options: p, Env: env})
	}
}
