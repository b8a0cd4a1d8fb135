package options

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// Settings are how and where every configuration of a command runs.
type Settings struct {
	Mode, Parent, Format, Output string
	// Driver is the cgroup driver chosen (cgroup.Drivers, never auto), and
	// DriverWhy why.
	Driver, DriverWhy string
	Version           int
	Timeout           time.Duration
	Host              cgroup.Host
	Exe               string
	Stderr            io.Writer
	// CPUs are what a placement is checked against; nil when none is asked.
	CPUs *Placement
	// Trace (--trace, or implied by --trace-out) and what is written of it.
	Trace bool
	Out   *TraceOutputs
	// TraceSink writes a traced window to Out's files: the command's to
	// set (cmd/throttlebench), since nothing that resolves flags writes a
	// file; nil writes nothing.
	TraceSink func(throttle.Trace) error
	// Columns are what --columns chose (sweep, latency).
	Columns table.Columns
}

// TraceOutputs are the files a traced window is written to: its raw events
// (--trace-out) and its timeline (--plot with --trace), read when the trace
// is written, as latency knows only once it has planned whether it runs
// one configuration.
type TraceOutputs struct {
	Events, Timeline, Title string
}

// Settings checks the flags that are not configuration parameters, before
// anything is created.
func (o *Shared) Settings(ctx context.Context, changed func(string) bool, stderr io.Writer) (Settings, error) {
	s := Settings{Mode: o.Mode, Format: o.Format, Output: o.Output, Timeout: o.Timeout, Host: cgroup.Host{Root: "/"}, Stderr: stderr}
	if err := badinput.Choice("cgroup", o.Mode, []string{runner.ModeAuto, runner.ModeCreate, runner.ModeCurrent}); err != nil {
		return s, err
	}
	if o.Mode == runner.ModeCurrent {
		if err := config.InCurrent(o.Given(changed), changed("parent"), o.Parent); err != nil {
			return s, err
		}
	}
	var err error
	if s.Version, err = config.CgroupVersion(o.Version); err != nil {
		return s, err
	}
	// A parent the user names must exist inside the cpu hierarchy: checked
	// here, so that a bad one creates nothing. Without a hierarchy the
	// harness says so (or falls back to the current cgroup).
	s.Parent = o.Parent
	if o.Parent != "" {
		if hier, err := s.Host.CPUHierarchy(s.Version); err == nil {
			if s.Parent, err = hier.ParentDir(o.Parent); err != nil {
				return s, badinput.Errorf("parent", "invalid --parent %q: %v", o.Parent, err)
			}
		}
	}
	if err := o.chooseDriver(ctx, changed, &s); err != nil {
		return s, err
	}
	if changed("cpuset") || changed("one-per-core") {
		s.CPUs = ReadPlacement(s.Host, s.Version, s.Parent)
	}
	if err := Output("output", o.Output); err != nil {
		return s, err
	}
	if err := Output("trace-out", o.TraceOut); err != nil {
		return s, err
	}
	s.Trace = o.Trace || o.TraceOut != ""
	s.Out = &TraceOutputs{Events: o.TraceOut}
	if o.Plot != "" {
		if !s.Trace {
			return s, badinput.Errorf("plot", "--plot %q draws the traced window's timeline: add --trace", o.Plot)
		}
		if err := Plot(o.Plot); err != nil {
			return s, err
		}
		s.Out.Timeline, s.Out.Title = o.Plot, "throttlebench run --trace"
	}
	if err := config.Timeout(o.Timeout); err != nil {
		return s, err
	}
	exe, err := os.Executable()
	if err != nil {
		return s, err
	}
	s.Exe = exe
	return s, nil
}

// Options is what the harness needs to run one configuration, as a plan;
// a placement this machine cannot give is refused here, before anything
// runs.
func (s Settings) Options(c config.Config) (plan.Options, error) {
	if s.CPUs != nil {
		if err := s.CPUs.Check(c); err != nil {
			return plan.Options{}, err
		}
	}
	return plan.Options{
		Bench: c.ClosedLoop(), Open: c.OpenLoop(c.GOMAXPROCSValue()),
		Policy: c.GOMAXPROCS, Mode: s.Mode, Version: s.Version, Parent: s.Parent,
		Limits: c.Limits, LimitsSet: c.LimitsSet, CPUs: c.Cpuset, Trace: s.Trace,
	}, nil
}

// Env is what every configuration's run takes from this invocation.
func (s Settings) Env() runner.Env {
	e := runner.Env{Host: s.Host, Exe: s.Exe, Stderr: s.Stderr}
	if s.Trace {
		e.TraceSink = s.TraceSink
	}
	return e
}
