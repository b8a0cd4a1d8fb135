package runner

import (
	"context"
	"errors"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report"
)

// The core as the engines outside this package (internal/fleet) use it:
// the machine's seams, the slices' place, the trace window and the report's
// names. run and latency use the same pieces unexported.

// Prepare readies l for a run by an engine of another package: its tracer
// session (shared by the runs of a list), and the seams left unset filled
// with the real kernel's.
func (l *Local) Prepare() Local {
	l.session()
	return l.withDefaults()
}

// HostCPUOf reads the machine's CPU times below o's root.
func (k Local) HostCPUOf(o Options) func() (host.CPUTimes, error) { return k.hostCPU(o) }

// Place is where a run's slices go, found, checked and tidied before any
// is made (Local.Place); an engine that makes many (a fleet) makes each
// with NewSlice and removes the default parents once, at its end.
type Place struct {
	k Local
	p slicePlace
}

// Place finds the hierarchy and parent o asks for, tidies the empty slices
// of runs that no longer live, and says where a slice goes; it creates
// nothing. Where no cpu hierarchy is found, NoHierarchy says why.
func (k Local) Place(ctx context.Context, o Options) (*Place, error) {
	p, err := k.placeSlices(ctx, o)
	if err != nil {
		return nil, err
	}
	return &Place{k, p}, nil
}

// NoHierarchy is why no cpu hierarchy was found, when that is err's cause.
func NoHierarchy(err error) (error, bool) {
	var nh *noHierarchy
	if errors.As(err, &nh) {
		return nh.err, true
	}
	return nil, false
}

// Parent is the directory the slices go in.
func (p *Place) Parent() string { return p.p.parent }

// Notes are what placing found on its way, for the result's warnings.
func (p *Place) Notes() []report.Warning { return p.p.notes }

// OwnParent says the parent is the default one, made when missing, to be
// removed (RemoveDefaultParents) once the run's last slice is gone.
func (p *Place) OwnParent() bool { return p.p.ownParent }

// NewSlice makes a slice with o's limits; on error nothing of it is left.
func (p *Place) NewSlice(o Options) (Slice, error) {
	return p.k.Cgroups.CreateSlice(p.p.hier, p.p.spec(o))
}

// NeedsPrivilege says what to do about a slice refused for lack of rights
// (cgroup.ErrPermission); other errors are returned as they are.
func (p *Place) NeedsPrivilege(err error, hint string) error { return p.p.needsPrivilege(err, hint) }

// RemoveDefaultParents removes the default parent and its twins if no
// slice is left in them.
func (p *Place) RemoveDefaultParents() { p.p.removeDefaultParents(p.k) }

// ReadBack reads the limits of g and its ancestors as the kernel took them.
func ReadBack(g Group) (cgroup.Limits, []cgroup.Level, error) { return readBack(g) }

// ReportGroup is a cgroup as the report names it.
func ReportGroup(cg cgroup.Cgroup) bandwidth.Group { return group(cg) }

// InSlice runs created in a slice made where o says, which it removes on
// every path (after created returns); what placing found on its way
// comes as notes, and what could not be removed is a warning on R, or
// joined to the error.
func InSlice[R warned](k Local, ctx context.Context, o Options,
	created func(ctx context.Context, o Options, started time.Time, slice Slice, notes []report.Warning) (R, error)) (R, error) {
	o.Mode = ModeCreate
	return inCgroup(k, ctx, o, created, nil)
}

// GroupOf is a cgroup that exists already (latency --target's --cgroup
// PATH) as a Group whose limits and counters a run reads, never writes.
func GroupOf(cg cgroup.Cgroup) Group { return kernelGroup{cg} }

// ReadBackSlice is ReadBack for a created slice, with its cpuset as the
// kernel took it ("" without one).
func ReadBackSlice(s Slice) (cgroup.Limits, []cgroup.Level, string, error) { return readBackSlice(s) }
