package main

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// settings are how and where every configuration of a command runs.
type settings struct {
	mode, parent, format, output string
	// driver is the cgroup driver chosen (cgroup.Drivers, never auto), and
	// why.
	driver, driverWhy string
	version           int
	timeout           time.Duration
	host              cgroup.Host
	exe               string
	stderr            io.Writer
	// cpus are what a placement is checked against; nil when none is asked.
	cpus *cpuFacts
	// trace (--trace, or implied by --trace-out) and what is written of it.
	trace bool
	out   *traceOutputs
	// columns are what --columns chose (sweep, latency).
	columns table.Columns
}

// view is how the tables show: --columns, and the width they fit
// (tableWidth).
func (s settings) view(stdout io.Writer) table.View {
	return table.View{Columns: s.columns, Width: tableWidth(s.output, stdout)}
}

// traceOutputs are the files a traced window is written to: its raw events
// (--trace-out) and its timeline (--plot with --trace), read when the trace
// is written, as latency knows only once it has planned whether it runs
// one configuration.
type traceOutputs struct {
	events, timeline, title string
}

func (t *traceOutputs) write(tr throttle.Trace) error {
	var errs []error
	if t.events != "" {
		errs = append(errs, throttle.EventsFile(t.events, tr))
	}
	if t.timeline != "" {
		errs = append(errs, plot.SaveTimeline(t.timeline, tr, t.title))
	}
	return errors.Join(errs...)
}

// settings checks the flags that are not configuration parameters, before
// anything is created.
func (o *runFlags) settings(ctx context.Context, changed func(string) bool, stderr io.Writer) (settings, error) {
	s := settings{mode: o.mode, format: o.format, output: o.output, timeout: o.timeout, host: cgroup.Host{Root: "/"}, stderr: stderr}
	if err := config.Choice("cgroup", o.mode, []string{runner.ModeAuto, runner.ModeCreate, runner.ModeCurrent}); err != nil {
		return s, err
	}
	if o.mode == runner.ModeCurrent {
		if err := config.InCurrent(o.given(changed), changed("parent"), o.parent); err != nil {
			return s, err
		}
	}
	var err error
	if s.version, err = config.CgroupVersion(o.version); err != nil {
		return s, err
	}
	// A parent the user names must exist inside the cpu hierarchy: checked
	// here, so that a bad one creates nothing. Without a hierarchy the
	// harness says so (or falls back to the current cgroup).
	s.parent = o.parent
	if o.parent != "" {
		if hier, err := s.host.CPUHierarchy(s.version); err == nil {
			if s.parent, err = hier.ParentDir(o.parent); err != nil {
				return s, config.Usagef("parent", "invalid --parent %q: %v", o.parent, err)
			}
		}
	}
	if err := o.chooseDriver(ctx, changed, &s); err != nil {
		return s, err
	}
	if changed("cpuset") || changed("one-per-core") {
		s.cpus = readCPUFacts(s.host, s.version, s.parent)
	}
	if err := config.Output("output", o.output); err != nil {
		return s, err
	}
	if err := config.Output("trace-out", o.traceOut); err != nil {
		return s, err
	}
	s.trace = o.trace || o.traceOut != ""
	s.out = &traceOutputs{events: o.traceOut}
	if o.plot != "" {
		if !s.trace {
			return s, config.Usagef("plot", "--plot %q draws the traced window's timeline: add --trace", o.plot)
		}
		if err := config.Plot(o.plot); err != nil {
			return s, err
		}
		s.out.timeline, s.out.title = o.plot, "throttlebench run --trace"
	}
	if err := config.Timeout(o.timeout); err != nil {
		return s, err
	}
	exe, err := os.Executable()
	if err != nil {
		return s, err
	}
	s.exe = exe
	return s, nil
}

// options is what the harness needs to run one configuration; a
// placement this machine cannot give is refused here, before anything runs.
func (s settings) options(c config.Config) (plan.Options, error) {
	if s.cpus != nil {
		if err := s.cpus.check(c); err != nil {
			return plan.Options{}, err
		}
	}
	return plan.Options{
		Bench: c.ClosedLoop(), Open: c.OpenLoop(c.GOMAXPROCSValue()),
		Policy: c.GOMAXPROCS, Mode: s.mode, Version: s.version, Parent: s.parent,
		Limits: c.Limits, LimitsSet: c.LimitsSet, CPUs: c.Cpuset, Trace: s.trace,
	}, nil
}

// env is what every configuration's run takes from this invocation.
func (s settings) env() runner.Env {
	e := runner.Env{Host: s.host, Exe: s.exe, Stderr: s.stderr}
	if s.trace {
		e.TraceSink = s.out.write
	}
	return e
}
