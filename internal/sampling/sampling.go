package sampling

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// Notice is what to say on stderr as sampling begins without an end of
// its own (no --duration); "" where it has one.
func Notice(r usage.Options, cg cgroup.Cgroup) string {
	switch {
	case r.Command != nil && r.Duration == 0:
		return fmt.Sprintf("throttlebench: sampling %s every %v until the command exits, or Ctrl-C", cg.Dir, r.Interval)
	case r.Duration == 0:
		return fmt.Sprintf("throttlebench: sampling %s every %v until Ctrl-C", cg.Dir, r.Interval)
	}
	return ""
}

// Run samples cg through counter on clock and builds what it collected.
// begin (sample -- CMD: the command's go-ahead), when set, is called just
// before the first reading. err is why there is nothing to write; after
// is the error to end with once the file is written: sampling stopped by
// an error, or cut short by a signal with --duration (the exit code,
// 130/143, says it is shorter than asked).
func Run(ctx context.Context, r usage.Options, cg cgroup.Cgroup, counter usage.Counter, clock usage.Clock, begin func() error) (f usage.File, after, err error) {
	started := time.Now()
	tr := startTrace(r, cg)
	defer tr.stop()
	if begin != nil {
		if err := begin(); err != nil {
			return f, nil, err
		}
	}
	// The cgroup's CPU pressure beside its usage, where the kernel keeps
	// it (v2): on v1 the first reading says there is none.
	rec := usage.Sampler{Counter: counter, Clock: clock, Interval: r.Interval, Duration: r.Duration, CPU: host.ProcessCPU, Pressure: pressureOf(cg)}.Run(ctx)
	if errors.Is(context.Cause(ctx), runner.ErrCommandExited) {
		rec.Interrupted = false // sample -- CMD: the command's end is sampling's
	}
	if rec.Trace.Len() == 0 {
		if rec.Err != nil {
			return f, nil, rec.Err
		}
		return f, nil, fmt.Errorf("stopped before the first interval of %v ended: nothing to write", r.Interval)
	}
	f = usage.Build(rec, usage.Meta{
		Cgroup:    usage.CgroupInfo{Version: cg.Version, Path: cg.Path, Dir: cg.Dir, Counter: cg.UsageCounter()},
		StartedAt: started, Limit: r.Limit, Target: r.Target, Period: r.Period,
		Warnings: r.WholeMachine(cg.IsHostRoot()),
	})
	var traceWarnings []report.Warning
	f.ThrottleEvents, traceWarnings = tr.summary()
	f.Warnings = append(f.Warnings, traceWarnings...)
	switch {
	case rec.Err != nil:
		after = fmt.Errorf("sampling stopped after %d intervals, which were written: %w", rec.Trace.Len(), rec.Err)
	case rec.Interrupted && r.Duration > 0:
		after = context.Cause(ctx)
	}
	return f, after, nil
}

// pressureOf reads cg's CPU pressure as the sampler takes it.
func pressureOf(cg cgroup.Cgroup) func() (usage.Pressure, bool, error) {
	return func() (usage.Pressure, bool, error) {
		p, ok, err := cg.Pressure()
		return usage.Pressure{Some: p.Some, Full: p.Full, FullOK: p.FullOK}, ok, err
	}
}
