package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// runFlags are the flags run, sweep and latency share: one per configuration
// parameter (config.Params), and the settings of where and how to run.
type runFlags struct {
	values  map[string]*string
	mode    string
	version string
	driver  string
	parent  string
	format  string
	output  string
	timeout time.Duration
	// --trace and --trace-out (run and latency: registerTrace), and run's
	// --plot, the traced window's timeline.
	trace    bool
	traceOut string
	plot     string
	// --columns (sweep and latency: registerColumns).
	columns string
	// argv is run's and sweep's command, given after -- (takeCommand).
	argv []string
}

func newRunFlags() *runFlags { return &runFlags{values: map[string]*string{}} }

// register declares the flags: the parameters' own that command takes,
// from config.Params (lists and ranges for its axes when lists is set).
func (o *runFlags) register(cmd *cobra.Command, command config.Command, formats []string, lists bool) {
	f := cmd.Flags()
	for _, p := range config.ParamsFor(command) {
		v := &paramValue{s: p.Default, kind: p.Kind}
		help := p.Help
		if command == config.Latency && p.HelpLatency != "" {
			help = p.HelpLatency
		}
		if lists && p.Axis {
			v.list, help = true, help+"; a list or range"+p.HelpList
		}
		o.values[p.Name] = &v.s
		f.Var(v, p.Name, help)
		if p.Hidden {
			f.MarkHidden(p.Name) // the command's argv: given after --
		}
		defaultOnce(f, p.Name)
		if p.Kind == config.Bool {
			f.Lookup(p.Name).NoOptDefVal = "true" // --pin, as --pin=true
		}
	}
	f.StringVar(&o.mode, "cgroup", runner.ModeAuto, "auto (create a slice when allowed, else measure the current cgroup), create, current")
	f.StringVar(&o.version, "cgroup-version", "auto", "cgroup version to use: auto, 1, 2")
	f.StringVar(&o.driver, "cgroup-driver", "auto", "who makes the slices' place: auto (systemd where it is the init on cgroup v2, as root, else cgroupfs), systemd (a delegated scope of ours), cgroupfs (our own directories)")
	f.StringVar(&o.parent, "parent", "", "cgroup under which slices are created (default: throttlebench at the top of the cpu hierarchy)")
	formatFlag(f, &o.format, formats)
	f.StringVarP(&o.output, "output", "o", "", "write the result to this file (atomically) instead of stdout")
	f.DurationVar(&o.timeout, "timeout", 0, "give up after this long, cleaning up everything (0 = no limit)")
}

// registerTrace declares --trace and --trace-out, for the commands that
// trace (run, latency).
func (o *runFlags) registerTrace(cmd *cobra.Command, plot bool) {
	f := cmd.Flags()
	f.BoolVar(&o.trace, "trace", false, "record when the kernel throttled the measured cgroup, with eBPF, and tie it to the iterations or requests it slowed (root)")
	f.StringVar(&o.traceOut, "trace-out", "", "with --trace (implied): write the raw throttle events to this file (JSON, or CSV for a .csv name), atomically")
	if plot {
		f.StringVar(&o.plot, "plot", "", "with --trace: draw the iterations against the throttles, per CPU, into this .svg or .png file")
	}
}

// registerColumns declares --columns, for the commands whose text is a
// table of configurations (sweep, latency).
func (o *runFlags) registerColumns(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.columns, "columns", "", columnsHelp)
}

// columnsHelp is --columns' help wherever it is a flag.
const columnsHelp = "the table's columns: all, or a list such as p50_ms,p99_ms,throttled " +
	"(default: those that vary between rows and the headline ones, fitted to the terminal's width, 80 when not a terminal)"

// given are the parameters the user gave, by name.
func (o *runFlags) given(changed func(string) bool) map[string]string {
	out := map[string]string{}
	for name, v := range o.values {
		if changed(name) {
			out[name] = *v
		}
	}
	if o.argv != nil {
		argv, _ := json.Marshal(o.argv)
		out["workload"], out["command"] = "command", string(argv)
	}
	return out
}

// takeCommand takes the command after -- (run, sweep): the command
// workload's argv, as given. One that cannot be found here is bad input,
// found before anything is made, unless it runs elsewhere (local false:
// sweep --emit, in the pods' image).
func (o *runFlags) takeCommand(cmd *cobra.Command, args []string, local bool) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.ArgsLenAtDash() != 0 {
		return config.Usagef("command", "unexpected argument %q: a command to measure goes after --: throttlebench %s [flags] -- CMD [ARGS...]", args[0], cmd.Name())
	}
	if cmd.Flags().Changed("workload") {
		return config.Usagef("workload", "--workload %q conflicts with the command after --: give one of them", *o.values["workload"])
	}
	if _, err := exec.LookPath(args[0]); err != nil && local {
		return config.Usagef("command", "invalid command %q: %v", args[0], errors.Unwrap(err))
	}
	o.argv = args
	return nil
}

// plan checks the flags of a command that takes lists (sweep, latency) and
// turns them into its configurations (sweep.Plan), all before anything
// runs: bad input exits 2 with nothing created. columns are the names
// --columns may give for configurations with those keys (the swept flags).
func (o *runFlags) plan(ctx context.Context, command config.Command, changed func(string) bool, formats []string, plotPath string, maxConfigs int,
	columns func(keys []string) []string, stderr io.Writer) (settings, []sweep.Step, error) {
	if err := config.Choice("format", o.format, formats); err != nil {
		return settings{}, nil, err
	}
	if err := config.Plot(plotPath); err != nil {
		return settings{}, nil, err
	}
	if err := sweep.CheckMaxConfigs(maxConfigs); err != nil {
		return settings{}, nil, err
	}
	s, err := o.settings(ctx, changed, stderr)
	if err != nil {
		return s, nil, err
	}
	spec := sweep.SpecFor(command, o.given(changed))
	spec.MaxConfigs, spec.Options, spec.NumCPU = maxConfigs, s.options, runtime.NumCPU()
	steps, err := sweep.Plan(spec)
	if err != nil || columns == nil {
		return s, steps, err
	}
	s.columns, err = config.Columns(o.columns, o.format, columns(steps[0].Config.Flags()))
	return s, steps, err
}
