package main

import (
	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/runner"
)

// runFlags are the flags run, sweep and latency share, resolved by
// internal/options; this file only declares them.
type runFlags struct{ *options.Shared }

func newRunFlags() *runFlags { return &runFlags{options.NewShared()} }

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
		o.Values[p.Name] = &v.s
		f.Var(v, p.Name, help)
		if p.Hidden {
			f.MarkHidden(p.Name) // the command's argv: given after --
		}
		defaultOnce(f, p.Name)
		if p.Kind == config.Bool {
			f.Lookup(p.Name).NoOptDefVal = "true" // --pin, as --pin=true
		}
	}
	f.StringVar(&o.Mode, "cgroup", runner.ModeAuto, "auto (create a slice when allowed, else measure the current cgroup), create, current")
	f.StringVar(&o.Version, "cgroup-version", "auto", "cgroup version to use: auto, 1, 2")
	f.StringVar(&o.Driver, "cgroup-driver", "auto", "who makes the slices' place: auto (systemd where it is the init on cgroup v2, as root, else cgroupfs), systemd (a delegated scope of ours), cgroupfs (our own directories)")
	f.StringVar(&o.Parent, "parent", "", "cgroup under which slices are created (default: throttlebench at the top of the cpu hierarchy)")
	formatFlag(f, &o.Format, formats)
	f.StringVarP(&o.Output, "output", "o", "", "write the result to this file (atomically) instead of stdout")
	f.DurationVar(&o.Timeout, "timeout", 0, "give up after this long, cleaning up everything (0 = no limit)")
}

// registerTrace declares --trace and --trace-out, for the commands that
// trace (run, latency).
func (o *runFlags) registerTrace(cmd *cobra.Command, plot bool) {
	f := cmd.Flags()
	f.BoolVar(&o.Trace, "trace", false, "record when the kernel throttled the measured cgroup, with eBPF, and tie it to the iterations or requests it slowed (root)")
	f.StringVar(&o.TraceOut, "trace-out", "", "with --trace (implied): write the raw throttle events to this file (JSON, or CSV for a .csv name), atomically")
	if plot {
		f.StringVar(&o.Plot, "plot", "", "with --trace: draw the iterations against the throttles, per CPU, into this .svg or .png file")
	}
}

// registerColumns declares --columns, for the commands whose text is a
// table of configurations (sweep, latency).
func (o *runFlags) registerColumns(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.Columns, "columns", "", columnsHelp)
}

// columnsHelp is --columns' help wherever it is a flag.
const columnsHelp = "the table's columns: all, or a list such as p50_ms,p99_ms,throttled " +
	"(default: those that vary between rows and the headline ones, fitted to the terminal's width, 80 when not a terminal)"
