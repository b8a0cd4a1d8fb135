package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
)

// A run in its cgroup: the slice made where the place says, the workload
// moved in before it runs anything, the slice read back and removed on
// every path (or the current cgroup, where o asks for it).

// inCgroup finds or creates the cgroup o asks for and runs there: created
// in a slice it removes on every path, current in the process's own
// cgroup. R is the report of what runs; what the run found on its way
// (stale slices tidied, a fallback to the current cgroup, a slice that
// could not be removed) goes into its warnings: nothing here prints.
func inCgroup[R warned](k Local, ctx context.Context, o Options,
	created func(context.Context, Options, time.Time, Slice, []report.Warning) (R, error),
	current func(context.Context, Options, time.Time, []report.Warning) (R, error)) (res R, err error) {
	var none R
	started := time.Now()
	if o.Mode == ModeCurrent {
		return current(ctx, o, started, nil)
	}
	p, err := k.placeSlices(ctx, o)
	var nh *noHierarchy
	if errors.As(err, &nh) && o.Mode == ModeAuto && !o.LimitsSet {
		return current(ctx, o, started, []report.Warning{report.Warn(report.KindCurrentCgroup, "ran in the current cgroup: %v", nh.err)})
	}
	if err != nil {
		return none, err
	}
	slice, err := p.create(k, o)
	if errors.Is(err, cgroup.ErrPermission) && o.Mode == ModeAuto && !o.LimitsSet {
		note := report.Warn(report.KindCurrentCgroup, "ran in the current cgroup: cannot create a slice under %s (%v)", p.parent, err)
		return current(ctx, o, started, append(p.notes, note))
	}
	// Where the default parent cannot be made (on v2, the top enables no
	// cpu controller for its children: a container's private cgroup
	// namespace, whose root is the container's own cgroup, holding its
	// processes), auto mode without limits measures where it is, as in a
	// v1 container. A parent the user named is refused as before.
	var pe *cgroup.ParentError
	if errors.As(err, &pe) && p.ownParent && o.Mode == ModeAuto && !o.LimitsSet {
		note := report.Warn(report.KindCurrentCgroup, "ran in the current cgroup: %v", err)
		return current(ctx, o, started, append(p.notes, note))
	}
	if err != nil {
		return none, p.needsPrivilege(err, ", or measure the limits you are in with --cgroup current")
	}
	defer func() {
		if derr := p.remove(k, slice); derr != nil {
			if err == nil {
				res.AddWarning(report.Warn(report.KindSliceLeft, "the slice could not be removed: %v", derr))
			} else {
				err = errors.Join(err, derr)
			}
		}
	}()
	return created(ctx, o, started, slice, p.notes)
}

// warned is a report that takes the warnings found on the way to it.
type warned interface{ AddWarning(report.Warning) }

// placed is what placeAndWarm needs of a workload child, of either loop.
type placed interface {
	Pid() int
	Go() error
	WaitWarm(ctx context.Context) error
}

// placeAndWarm moves a started child into its slice before it runs
// anything, lets it go and waits for its warm-up: nothing of the workload
// runs outside the slice.
func placeAndWarm(ctx context.Context, slice Slice, child placed) error {
	if err := slice.AddProc(child.Pid()); err != nil {
		return fmt.Errorf("move workload process into %s: %w", slice.Cgroup().Dir, err)
	}
	if err := child.Go(); err != nil {
		return fmt.Errorf("start workload: %w", err)
	}
	return child.WaitWarm(ctx)
}

// readBack reads the limits of g and its ancestors as the kernel took them,
// rather than echo what we asked for.
func readBack(g Group) (cgroup.Limits, []cgroup.Level, error) {
	limits, err := g.Limits()
	if err != nil {
		return cgroup.Limits{}, nil, err
	}
	chain, err := g.Chain()
	return limits, chain, err
}

// readBackSlice is readBack for a created slice, with its cpuset as the
// kernel took it ("" without one).
func readBackSlice(slice Slice) (cgroup.Limits, []cgroup.Level, string, error) {
	limits, chain, err := readBack(slice)
	if err != nil {
		return limits, chain, "", err
	}
	cpuset, err := slice.Cpuset()
	if err != nil {
		return limits, chain, "", fmt.Errorf("read back the cpuset of %s: %w", slice.Cgroup().Dir, err)
	}
	return limits, chain, cpuset, nil
}
