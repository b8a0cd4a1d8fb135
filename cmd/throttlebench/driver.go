package main

import (
	"context"
	"errors"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// chooseDriver checks --cgroup-driver against the other flags and picks the
// driver once, before anything is created. auto never asks systemd where
// the flags say where the slices go already (--parent, --cgroup current,
// --cgroup-version 1): those keep cgroupfs, as before. ctx cuts the wait
// for systemd's answer (D-Bus, up to 5 s) on Ctrl-C.
func (o *runFlags) chooseDriver(ctx context.Context, changed func(string) bool, s *settings) error {
	if err := config.Choice("cgroup-driver", o.driver, cgroup.Drivers); err != nil {
		return err
	}
	fixed := ""
	switch {
	case o.mode == runner.ModeCurrent:
		fixed = "--cgroup current measures the current cgroup and creates none"
	case o.parent != "":
		fixed = "--parent names the cgroup the slices go in"
	case s.version == 1:
		fixed = "--cgroup-version 1 has no systemd scopes to delegate"
	}
	if fixed != "" {
		if o.driver == cgroup.DriverSystemd {
			return config.Usagef("cgroup-driver", "--cgroup-driver systemd makes a scope for the slices, but %s: leave one of them out", fixed)
		}
		s.driver, s.driverWhy = cgroup.DriverCgroupfs, fixed
		return nil
	}
	var facts cgroup.DriverFacts
	if o.driver != cgroup.DriverCgroupfs {
		facts = s.host.DriverFacts(ctx)
	}
	name, why, err := cgroup.ChooseDriver(o.driver, facts)
	var nocpu *cgroup.NoCPUDelegated
	if errors.As(err, &nocpu) {
		return config.Usagef("cgroup-driver", "%v", err)
	}
	if err != nil {
		return config.Usagef("cgroup-driver", "--cgroup-driver systemd cannot work here: %v; use auto or cgroupfs", err)
	}
	if name == cgroup.DriverSystemd && changed("cpuset") {
		if err := cgroup.CpusetUndelegated(facts); err != nil {
			return config.Usagef("cpuset", "--cpuset: %v", err)
		}
	}
	s.driver, s.driverWhy = name, why
	return nil
}

// openDriver makes the place the chosen driver runs slices in (a systemd
// scope; nothing under cgroupfs) and gives the parent they go in, "" for
// the runner's own default. The caller closes the driver on every path.
func (s settings) openDriver(ctx context.Context) (cgroup.Driver, cgroup.Place, error) {
	d := s.host.NewDriver(s.driver)
	if s.mode == runner.ModeCurrent {
		return d, cgroup.Place{}, nil
	}
	place, err := d.Open(ctx)
	return d, place, err
}

// withDriver runs f with the steps' slices in the driver's place, and
// closes the driver after, however f ends.
func withDriver[T any](ctx context.Context, s settings, steps []sweep.Step, f func([]sweep.Step) (T, error)) (out T, err error) {
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
		steps[0].Opts.Notes = append(steps[0].Opts.Notes, place.Notes...)
	}
	return f(steps)
}
