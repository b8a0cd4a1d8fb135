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

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/childproto"
	"github.com/throttlebench/throttlebench/internal/driver"
	"github.com/throttlebench/throttlebench/internal/host"
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
	Bench   driver.Config
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

// reading is what the counters the warnings need, besides cpu.stat, said
// at one moment.
type reading struct {
	at      time.Time
	host    *host.CPUTimes
	usage   *time.Duration // the measured cgroup's CPU usage (current mode)
	process *time.Duration // this process's CPU time (current mode)
}

// read takes a reading through the given readers (function values, so
// tests fake them); usage and process are nil where they mean nothing (a
// created slice: the workload is another process, alone in its slice). A
// reader that fails leaves its number unknown and its warning silent: it
// never fails a run.
func read(hostCPU func() (host.CPUTimes, error), usage, process func() (time.Duration, error)) reading {
	r := reading{at: time.Now()}
	if t, err := hostCPU(); err == nil {
		r.host = &t
	}
	for _, c := range []struct {
		f   func() (time.Duration, error)
		dst **time.Duration
	}{{usage, &r.usage}, {process, &r.process}} {
		if c.f == nil {
			continue
		}
		if v, err := c.f(); err == nil {
			*c.dst = &v
		}
	}
	return r
}

// background turns two readings into what happened between them.
func background(before, after reading) report.Background {
	bg := report.Background{Window: after.at.Sub(before.at), BusyResolution: 2 * host.Tick}
	if before.host != nil && after.host != nil {
		if busy, ok := host.Busy(*before.host, *after.host, bg.Window); ok {
			bg.MachineBusy = &busy
		}
	}
	delta := func(a, b *time.Duration) *time.Duration {
		if a == nil || b == nil || *b < *a {
			return nil
		}
		d := *b - *a
		return &d
	}
	bg.CgroupUsage = delta(before.usage, after.usage)
	bg.ProcessCPU = delta(before.process, after.process)
	return bg
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
			note := fmt.Sprintf("ran in the current cgroup: cannot create a slice under %s (%v)", parent, err)
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
	child, err := childproto.Start(o.Exe, o.Bench, o.Stderr)
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
	hostCPU := func() (host.CPUTimes, error) { return host.ReadStat(o.Host.Root) }
	before, err := slice.Stat()
	if err != nil {
		return nil, err
	}
	// The machine's counters only: the workload is the child, alone in its
	// slice, and its workers' CPU time comes back with the result.
	bgBefore := read(hostCPU, nil, nil)
	if err := child.Measure(); err != nil {
		return nil, fmt.Errorf("start measured iterations: %w", err)
	}
	res, err := child.Wait(ctx)
	if err != nil {
		return nil, err
	}
	bgAfter := read(hostCPU, nil, nil)
	after, err := slice.Stat()
	if err != nil {
		return nil, err
	}
	return build(o, started, "created", slice.Cgroup, limits, chain, res, after.Sub(before), background(bgBefore, bgAfter), nil), nil
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
	// Others may share this cgroup: its counters cover them too. Its usage
	// against this process's own CPU time tells whether they did.
	hostCPU := func() (host.CPUTimes, error) { return host.ReadStat(o.Host.Root) }
	var usage func() (time.Duration, error)
	if acct, err := o.Host.Accounting(cg); err == nil {
		usage = acct.Usage
	}
	var before cgroup.CPUStat
	var bgBefore reading
	res, err := driver.Run(ctx, o.Bench, func() (err error) {
		before, err = cg.Stat()
		bgBefore = read(hostCPU, usage, host.ProcessCPU)
		return err
	})
	if err != nil {
		return nil, err
	}
	bgAfter := read(hostCPU, usage, host.ProcessCPU)
	after, err := cg.Stat()
	if err != nil {
		return nil, err
	}
	return build(o, started, "current", cg, limits, chain, res, after.Sub(before), background(bgBefore, bgAfter), warnings), nil
}

func build(o Options, started time.Time, mode string, cg cgroup.Cgroup, limits cgroup.Limits, chain []cgroup.Level,
	res driver.Result, stat cgroup.CPUStat, bg report.Background, warnings []string) *report.Report {
	// report.Build adds the warnings about the numbers themselves.
	return report.Build(report.Input{
		Config: o.Bench, Policy: o.Policy, Mode: mode, Cgroup: cg, Limits: limits, Chain: chain,
		NumCPU: runtime.NumCPU(), Result: res, Stat: stat, Host: report.HostInfo(started), Warnings: warnings,
		Background: bg,
	})
}
