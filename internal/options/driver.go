package options

import (
	"context"
	"errors"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// chooseDriver checks --cgroup-driver against the other flags and picks the
// driver once, before anything is created. auto never asks systemd where
// the flags say where the slices go already (--parent, --cgroup current,
// --cgroup-version 1): those keep cgroupfs, as before. ctx cuts the wait
// for systemd's answer (D-Bus, up to 5 s) on Ctrl-C.
func (o *Shared) chooseDriver(ctx context.Context, changed func(string) bool, s *Settings) error {
	if err := badinput.Choice("cgroup-driver", o.Driver, cgroup.Drivers); err != nil {
		return err
	}
	fixed := ""
	switch {
	case o.Mode == runner.ModeCurrent:
		fixed = "--cgroup current measures the current cgroup and creates none"
	case o.Parent != "":
		fixed = "--parent names the cgroup the slices go in"
	case s.Version == 1:
		fixed = "--cgroup-version 1 has no systemd scopes to delegate"
	}
	if fixed != "" {
		if o.Driver == cgroup.DriverSystemd {
			return badinput.Errorf("cgroup-driver", "--cgroup-driver systemd makes a scope for the slices, but %s: leave one of them out", fixed)
		}
		s.Driver, s.DriverWhy = cgroup.DriverCgroupfs, fixed
		return nil
	}
	var facts cgroup.DriverFacts
	if o.Driver != cgroup.DriverCgroupfs {
		facts = s.Host.DriverFacts(ctx)
	}
	name, why, err := cgroup.ChooseDriver(o.Driver, facts)
	var nocpu *cgroup.NoCPUDelegated
	if errors.As(err, &nocpu) {
		return badinput.Errorf("cgroup-driver", "%v", err)
	}
	if err != nil {
		return badinput.Errorf("cgroup-driver", "--cgroup-driver systemd cannot work here: %v; use auto or cgroupfs", err)
	}
	if name == cgroup.DriverSystemd && changed("cpuset") {
		if err := cgroup.CpusetUndelegated(facts); err != nil {
			return badinput.Errorf("cpuset", "--cpuset: %v", err)
		}
	}
	s.Driver, s.DriverWhy = name, why
	return nil
}

// openDriver makes the place the chosen driver runs slices in (a systemd
// scope; nothing under cgroupfs) and gives the parent they go in, "" for
// the runner's own default. The caller closes the driver on every path.
func (s Settings) openDriver(ctx context.Context) (cgroup.Driver, cgroup.Place, error) {
	d := s.Host.NewDriver(s.Driver)
	if s.Mode == runner.ModeCurrent {
		return d, cgroup.Place{}, nil
	}
	place, err := d.Open(ctx)
	return d, place, err
}

// WithDriver runs f with the steps' slices in the driver's place, and
// closes the driver after, however f ends.
func WithDriver[T any](ctx context.Context, s Settings, steps []sweep.Step, f func([]sweep.Step) (T, error)) (out T, err error) {
	d, place, err := s.openDriver(ctx)
	defer func() { err = errors.Join(err, d.Close()) }()
	if err != nil {
		return out, err
	}
	if place.Parent != "" {
		for i := range steps {
			steps[i].Opts.Parent = place.Parent
		}
	}
	// What making the place found is said once, in the first result.
	if len(steps) > 0 {
		steps[0].Opts.Notes = append(steps[0].Opts.Notes, report.Of(report.KindLeftovers, place.Notes...)...)
	}
	return f(steps)
}
