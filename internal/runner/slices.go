package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/words"
)

// noHierarchy is why no cpu hierarchy was found: a run in auto mode
// without limits then measures the current cgroup instead.
type noHierarchy struct{ err error }

func (e *noHierarchy) Error() string { return e.err.Error() }
func (e *noHierarchy) Unwrap() error { return e.err }

// slicePlace is where a run's slices go, found, checked and tidied before
// any is made: run, latency and the instances of a fleet share it.
type slicePlace struct {
	hier      cgroup.Hierarchy
	parent    string
	ownParent bool // the default parent: made when missing, removed when empty
	cpusets   cgroup.Hierarchy
	cpusetErr error
	// twinParents are the parent's twins in the v1 hierarchies a slice
	// has twins in (cpuacct and cpuset where mounted apart): stale slices
	// are tidied there too, and the default parent's twins removed.
	twinParents []string
	cpuset      *cgroup.CpusetSpec
	notes       []report.Warning // for the result's warnings
}

// placeSlices finds the hierarchy and parent o asks for, tidies the empty
// slices (and twins) of runs that no longer live, and says where a slice
// goes. It creates nothing.
func (k Local) placeSlices(ctx context.Context, o Options) (slicePlace, error) {
	p := slicePlace{notes: slices.Clone(o.Notes)}
	var err error
	if p.hier, err = k.Cgroups.CPUHierarchy(o.Host, o.Version); err != nil {
		return p, &noHierarchy{err}
	}
	// Only the default parent is ever created (and removed again when the
	// last slice in it goes); a parent the user names must exist.
	p.parent, p.ownParent = p.hier.DefaultParent(), o.Parent == ""
	if !p.ownParent {
		if p.parent, err = k.Cgroups.ParentDir(p.hier, o.Parent); err != nil {
			return p, err
		}
	}
	// Where v1 keeps cpusets in a hierarchy of their own, a slice with a
	// cpuset has a twin there, under the same parent path; where it keeps
	// cpuacct apart, every slice has one there.
	p.cpusets, p.cpusetErr = k.Cgroups.CpusetHierarchy(o.Host, p.hier)
	if p.cpusetErr == nil {
		p.twinParents = p.hier.TwinParents(p.parent, &p.cpusets)
	} else {
		p.twinParents = p.hier.TwinParents(p.parent, nil)
	}
	if o.CPUs != nil {
		if p.cpusetErr != nil {
			return p, fmt.Errorf("--cpuset %s: %w", cpulist.Format(o.CPUs), p.cpusetErr)
		}
		p.cpuset = &cgroup.CpusetSpec{Hier: p.cpusets, Parent: p.hier.TwinDir(p.cpusets, p.parent), CPUs: o.CPUs}
	}
	// A run whose owner was SIGKILLed leaves an empty slice (and twins);
	// tidy those first.
	var removed []string
	var skipped []cgroup.Skipped
	for _, dir := range append([]string{p.parent}, p.twinParents...) {
		r, s, _ := k.Cgroups.CleanStale(p.hier, dir)
		removed, skipped = append(removed, r...), append(skipped, s...)
	}
	if len(removed) > 0 {
		p.notes = append(p.notes, report.Warn(report.KindLeftovers, "removed %s left by runs that no longer live", words.N(len(removed), "slice")))
	}
	if len(skipped) > 0 {
		p.notes = append(p.notes, report.Warn(report.KindLeftovers, "left %d slice-like %s under %s alone: they hold processes we did not start (throttlebench cleanup says which)", len(skipped), words.Noun(float64(len(skipped)), "directory"), p.parent))
	}
	// A run cancelled already (a signal, a --timeout of microseconds, the
	// next configuration of an interrupted sweep) creates nothing. Only here,
	// before the slice: after it, the removal must always be set.
	return p, ctx.Err()
}

// spec is what a slice of this place is made with.
func (p slicePlace) spec(o Options) cgroup.SliceSpec {
	return cgroup.SliceSpec{Parent: p.parent, CreateParent: p.ownParent, Limits: o.Limits, Cpuset: p.cpuset}
}

// create makes a slice; when it cannot, the default parents it may have
// made for it go again (CreateSlice removes only the slice itself).
func (p slicePlace) create(k Local, o Options) (Slice, error) {
	slice, err := k.Cgroups.CreateSlice(p.hier, p.spec(o))
	if err != nil && p.ownParent {
		p.removeDefaultParents(k)
	}
	return slice, err
}

// needsPrivilege says what to do about a slice refused for lack of rights
// (cgroup.ErrPermission); other errors are returned as they are.
func (p slicePlace) needsPrivilege(err error, hint string) error {
	if !errors.Is(err, cgroup.ErrPermission) {
		return err
	}
	return fmt.Errorf("%w under %s (%v); run as root, or give --parent a subtree delegated to you%s", ErrNeedsPrivilege, p.parent, err, hint)
}

// remove removes a slice of this place, then the default parents once no
// slice is left in them.
func (p slicePlace) remove(k Local, slice Slice) error {
	err := slice.Delete()
	if p.ownParent {
		p.removeDefaultParents(k)
	}
	return err
}

// removeDefaultParents removes the default parent (with its cpuacct twin)
// and its cpuset twin where v1 keeps cpusets apart, if no slice is left in
// them.
func (p slicePlace) removeDefaultParents(k Local) {
	k.Cgroups.RemoveDefaultParent(p.hier)
	if p.cpusetErr == nil && p.hier.Separate(p.cpusets) {
		k.Cgroups.RemoveDefaultParent(p.cpusets)
	}
}
