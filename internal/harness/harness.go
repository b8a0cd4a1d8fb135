// Package harness runs one benchmark configuration end to end: it finds or
// creates the cgroup, runs the workload in it (a child process inside a
// created slice, or this process in the current cgroup), reads the kernel's
// counters around it, and always removes what it created.
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
)

// Modes of --cgroup.
const (
	ModeAuto    = "auto"
	ModeCreate  = "create"
	ModeCurrent = "current"
)

// Options describe one run. They are validated by the caller.
type Options struct {
	Bench   bench.Config
	Policy  string // the --gomaxprocs value as given, for the report
	Mode    string
	Version int    // cgroup version: 0 = whichever holds the cpu controller
	Parent  string // where slices go; "" = the hierarchy's default
	// Limits to create the slice with; LimitsSet says the user asked for
	// some, so that auto mode must not quietly run without them.
	Limits    cgroup.Limits
	LimitsSet bool
	Host      cgroup.Host
	Exe       string    // this binary, re-executed as the workload child
	Stderr    io.Writer // notes for the user
}

// ErrNeedsPrivilege wraps a failure to create a slice for lack of rights.
var ErrNeedsPrivilege = errors.New("cannot create a cgroup slice")

// Run executes one configuration and returns its report.
func Run(ctx context.Context, o Options) (*report.Report, error) {
	started := time.Now()
	if o.Mode == ModeCurrent {
		return runCurrent(ctx, o, started, nil)
	}
	hier, err := o.Host.CPUHierarchy(o.Version)
	if err != nil {
		if o.Mode == ModeAuto && !o.LimitsSet {
			return runCurrent(ctx, o, started, []string{fmt.Sprintf("ran in the current cgroup: %v", err)})
		}
		return nil, err
	}
	// Only the default parent is ever created (and removed again when the
	// last slice in it goes); a parent the user names must exist.
	parent, ownParent := hier.DefaultParent(), o.Parent == ""
	if !ownParent {
		if parent, err = hier.ParentDir(o.Parent); err != nil {
			return nil, err
		}
	}
	// A run whose owner was SIGKILLed leaves an empty slice; tidy those first.
	removed, skipped, _ := cgroup.CleanStale(parent)
	if len(removed) > 0 {
		fmt.Fprintf(o.Stderr, "throttlebench: removed %d slice(s) left by runs that no longer live\n", len(removed))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(o.Stderr, "throttlebench: left %d slice-like director(ies) under %s alone: they hold processes we did not start (throttlebench cleanup says which)\n", len(skipped), parent)
	}
	// A run cancelled already (a signal, a --timeout of microseconds, the
	// next configuration of an interrupted sweep) creates nothing. Only here,
	// before the slice: after it, the deferred removal must always be set.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slice, err := hier.CreateSlice(cgroup.SliceSpec{Parent: parent, CreateParent: ownParent, Limits: o.Limits})
	if errors.Is(err, cgroup.ErrPermission) {
		if o.Mode == ModeAuto && !o.LimitsSet {
			note := fmt.Sprintf("cannot create a slice under %s (%v); measured in the current cgroup instead", parent, err)
			fmt.Fprintf(o.Stderr, "throttlebench: %s\n", note)
			return runCurrent(ctx, o, started, []string{note})
		}
		return nil, fmt.Errorf("%w under %s (%v); run as root, give --parent a subtree delegated to you, or measure the limits you are in with --cgroup current", ErrNeedsPrivilege, parent, err)
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := slice.Delete(); err != nil {
			fmt.Fprintf(o.Stderr, "throttlebench: removing %s: %v\n", slice.Dir, err)
		}
		if ownParent {
			hier.RemoveDefaultParent()
		}
	}()
	return runCreated(ctx, o, started, slice)
}

func runCreated(ctx context.Context, o Options, started time.Time, slice *cgroup.Slice) (*report.Report, error) {
	// Read back what the kernel took, rather than echo what we asked for.
	limits, err := slice.Limits()
	if err != nil {
		return nil, err
	}
	chain, err := slice.Chain()
	if err != nil {
		return nil, err
	}
	child, err := bench.StartChild(o.Exe, o.Bench, o.Stderr)
	if err != nil {
		return nil, err
	}
	defer child.Kill()
	if err := slice.AddProc(child.Pid()); err != nil {
		return nil, fmt.Errorf("move workload process into %s: %w", slice.Dir, err)
	}
	if err := child.Go(); err != nil {
		return nil, fmt.Errorf("start workload: %w", err)
	}
	if err := child.WaitWarm(ctx); err != nil {
		return nil, err
	}
	before, err := slice.Stat()
	if err != nil {
		return nil, err
	}
	if err := child.Measure(); err != nil {
		return nil, fmt.Errorf("start measured iterations: %w", err)
	}
	res, err := child.Wait(ctx)
	if err != nil {
		return nil, err
	}
	after, err := slice.Stat()
	if err != nil {
		return nil, err
	}
	return build(o, started, "created", slice.Cgroup, limits, chain, res, after.Sub(before), nil), nil
}

func runCurrent(ctx context.Context, o Options, started time.Time, warnings []string) (*report.Report, error) {
	cg, err := o.Host.Self(o.Version)
	if err != nil {
		return nil, fmt.Errorf("find the current cgroup: %w", err)
	}
	limits, err := cg.Limits()
	if err != nil {
		return nil, err
	}
	chain, err := cg.Chain()
	if err != nil {
		return nil, err
	}
	var before cgroup.CPUStat
	res, err := bench.Run(ctx, o.Bench, func() (err error) {
		before, err = cg.Stat()
		return err
	})
	if err != nil {
		return nil, err
	}
	after, err := cg.Stat()
	if err != nil {
		return nil, err
	}
	// Others may share this cgroup: its counters cover them too.
	return build(o, started, "current", cg, limits, chain, res, after.Sub(before), warnings), nil
}

func build(o Options, started time.Time, mode string, cg cgroup.Cgroup, limits cgroup.Limits, chain []cgroup.Level,
	res bench.Result, stat cgroup.CPUStat, warnings []string) *report.Report {
	if res.GOMAXPROCS < o.Bench.Workers {
		warnings = append(warnings, fmt.Sprintf("GOMAXPROCS %d is below --workers %d: workers take turns even without a CPU limit", res.GOMAXPROCS, o.Bench.Workers))
	}
	return report.Build(report.Input{
		Config: o.Bench, Policy: o.Policy, Mode: mode, Cgroup: cg, Limits: limits, Chain: chain,
		NumCPU: runtime.NumCPU(), Result: res, Stat: stat, Host: report.HostInfo(started), Warnings: warnings,
	})
}
