package main

import (
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/driver"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// runFlags are the flags run, sweep and latency share: one per configuration
// parameter (config.Params), and the settings of where and how to run.
type runFlags struct {
	values  map[string]*string
	mode    string
	version string
	parent  string
	format  string
	output  string
	timeout time.Duration
}

func newRunFlags() *runFlags { return &runFlags{values: map[string]*string{}} }

// register declares the flags: the parameters' own that command takes,
// from config.Params (lists and ranges for its axes when lists is set).
func (o *runFlags) register(cmd *cobra.Command, command config.Command, formats []string, defaultFormat string, lists bool) {
	f := cmd.Flags()
	for _, p := range config.ParamsFor(command) {
		v := &paramValue{s: p.Default, kind: p.Kind}
		help := p.Help
		if command == config.Latency && p.HelpLatency != "" {
			help = p.HelpLatency
		}
		if lists && p.Axis {
			v.list, help = true, help+"; a list or range"
		}
		o.values[p.Name] = &v.s
		f.Var(v, p.Name, help)
		if p.Kind == config.Bool {
			f.Lookup(p.Name).NoOptDefVal = "true" // --pin, as --pin=true
		}
	}
	f.StringVar(&o.mode, "cgroup", runner.ModeAuto, "auto (create a slice when allowed, else measure the current cgroup), create, current")
	f.StringVar(&o.version, "cgroup-version", "auto", "cgroup version to use: auto, 1, 2")
	f.StringVar(&o.parent, "parent", "", "cgroup under which slices are created (default: throttlebench at the top of the cpu hierarchy)")
	f.StringVar(&o.format, "format", defaultFormat, "output format: "+strings.Join(formats, ", "))
	f.StringVarP(&o.output, "output", "o", "", "write the result to this file (atomically) instead of stdout")
	f.DurationVar(&o.timeout, "timeout", 0, "give up after this long, cleaning up everything (0 = no limit)")
}

// given are the parameters the user gave, by name.
func (o *runFlags) given(changed func(string) bool) map[string]string {
	out := map[string]string{}
	for name, v := range o.values {
		if changed(name) {
			out[name] = *v
		}
	}
	return out
}

// settings are how and where every configuration of a command runs.
type settings struct {
	mode, parent, format, output string
	version                      int
	timeout                      time.Duration
	host                         cgroup.Host
	exe                          string
	stderr                       io.Writer
	// cpus are what a placement is checked against; nil when none is asked.
	cpus *cpuFacts
}

// settings checks the flags that are not configuration parameters, before
// anything is created.
func (o *runFlags) settings(changed func(string) bool, stderr io.Writer) (settings, error) {
	s := settings{mode: o.mode, format: o.format, output: o.output, timeout: o.timeout, host: cgroup.Host{Root: "/"}, stderr: stderr}
	if err := checkChoice("cgroup", o.mode, []string{runner.ModeAuto, runner.ModeCreate, runner.ModeCurrent}); err != nil {
		return s, err
	}
	if o.mode == runner.ModeCurrent {
		// It measures the limits already in place: a limit or a parent
		// cannot apply.
		for _, p := range config.Params {
			if _, ok := o.values[p.Name]; ok && p.Limit && changed(p.Name) {
				return s, usagef("--%s %q cannot be used with --cgroup current: it measures the limits already in place", p.Name, *o.values[p.Name])
			}
		}
		if changed("parent") {
			return s, usagef("--parent %q cannot be used with --cgroup current: it measures the limits already in place", o.parent)
		}
	}
	if err := checkChoice("cgroup-version", o.version, []string{"auto", "1", "2"}); err != nil {
		return s, err
	}
	s.version, _ = strconv.Atoi(o.version) // "auto" → 0
	// A parent the user names must exist inside the cpu hierarchy: checked
	// here, so that a bad one creates nothing. Without a hierarchy the
	// harness says so (or falls back to the current cgroup).
	s.parent = o.parent
	if o.parent != "" {
		if hier, err := s.host.CPUHierarchy(s.version); err == nil {
			if s.parent, err = hier.ParentDir(o.parent); err != nil {
				return s, usagef("invalid --parent %q: %v", o.parent, err)
			}
		}
	}
	if changed("cpuset") || changed("one-per-core") {
		s.cpus = readCPUFacts(s.host, s.version, s.parent)
	}
	if err := checkOutput("output", o.output); err != nil {
		return s, err
	}
	if o.timeout < 0 || o.timeout > maxTimeout {
		return s, usagef("invalid --timeout %v: want a duration between 0 (no limit) and %v", o.timeout, maxTimeout)
	}
	exe, err := os.Executable()
	if err != nil {
		return s, err
	}
	s.exe = exe
	return s, nil
}

// plan checks the flags of a command that takes lists (sweep, latency) and
// turns them into its configurations (sweep.Plan), all before anything
// runs: bad input exits 2 with nothing created.
func (o *runFlags) plan(command config.Command, changed func(string) bool, formats []string, plotPath string, maxConfigs int,
	stderr io.Writer) (settings, []sweep.Step, error) {
	if err := checkChoice("format", o.format, formats); err != nil {
		return settings{}, nil, err
	}
	if err := checkPlot(plotPath); err != nil {
		return settings{}, nil, err
	}
	if maxConfigs < 1 || maxConfigs > sweep.MaxConfigs {
		return settings{}, nil, usagef("invalid --max-configs %d: must be between 1 and %d", maxConfigs, sweep.MaxConfigs)
	}
	s, err := o.settings(changed, stderr)
	if err != nil {
		return s, nil, err
	}
	spec := sweep.Spec{Command: command, Axes: map[string]string{}, Fixed: map[string]string{}, MaxConfigs: maxConfigs,
		Options: s.options, NumCPU: runtime.NumCPU()}
	for name, v := range o.given(changed) {
		if p, _ := config.Lookup(name); p.Axis {
			spec.Axes[name] = v
		} else {
			spec.Fixed[name] = v
		}
	}
	steps, err := sweep.Plan(spec)
	return s, steps, err
}

// listFlags names the parameters of command that take lists.
func listFlags(command config.Command) string {
	var names []string
	for _, p := range config.AxesFor(command) {
		names = append(names, "--"+p.Name)
	}
	return strings.Join(names, ", ")
}

// options is what the harness needs to run one configuration; a
// placement this machine cannot give is refused here, before anything runs.
func (s settings) options(c config.Config) (runner.Options, error) {
	if s.cpus != nil {
		if err := s.cpus.check(c); err != nil {
			return runner.Options{}, err
		}
	}
	return runner.Options{
		Bench: driver.Config{Workload: c.Workload, Cost: c.Cost, Units: c.Units, Buffer: c.Buffer, Memory: c.Memory,
			Sleep: c.Sleep, SleepEvery: c.SleepEvery, SlowWorkers: c.SlowWorkers, Batch: c.Batch, Iterations: c.Iterations,
			Warmup: c.Warmup, Workers: c.Workers, GOMAXPROCS: c.GOMAXPROCSValue(), MinTime: c.MinTime,
			Pin: c.Pin, OnePerCore: c.OnePerCore},
		Open:   c.OpenLoop(c.GOMAXPROCSValue()),
		Policy: c.GOMAXPROCS, Mode: s.mode, Version: s.version, Parent: s.parent,
		Limits: c.Limits, LimitsSet: c.LimitsSet, CPUs: c.Cpuset, Host: s.host, Exe: s.exe, Stderr: s.stderr,
	}, nil
}

// paramValue is a parameter's flag: the text as given, checked by config
// (so that run and sweep word every error the same way), with the type its
// kind suggests in --help.
type paramValue struct {
	s    string
	kind config.Kind
	list bool
}

func (v *paramValue) String() string     { return v.s }
func (v *paramValue) Set(s string) error { v.s = s; return nil }
func (v *paramValue) Type() string {
	t := map[config.Kind]string{config.Int: "int", config.Float: "float", config.Duration: "duration", config.Words: "string", config.Bool: "bool"}[v.kind]
	if v.list {
		return t + "s"
	}
	return t
}
