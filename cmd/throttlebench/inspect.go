package main

import (
	"context"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/inspect"
	"github.com/throttlebench/throttlebench/internal/tracer"
)

// startGOMAXPROCS is Go's GOMAXPROCS as this process started, read while
// package variables are set, before main and cobra run: the default Go
// derived from the CPUs and the cgroup's limit (or the environment's
// GOMAXPROCS), before anything could set another.
var startGOMAXPROCS = runtime.GOMAXPROCS(0)

// busyWindow is how long inspect watches /proc/stat for other load.
const busyWindow = 200 * time.Millisecond

type inspectOptions struct {
	format string
	root   string // "/"; tests point it at a fixture tree
}

func newCmdInspect(f *factory, runF func(context.Context, inspectOptions) error) *cobra.Command {
	o := &inspectOptions{root: "/"}
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Explain this machine before trusting numbers from it: CPUs and SMT siblings, the cgroup and its limits, burst, GOMAXPROCS, caveats",
		Long: `inspect shows what decides how a benchmark behaves here: the online and
offline CPUs, the cores with their SMT siblings, sockets and NUMA nodes
(/sys/devices/system/cpu); this process's CPU affinity; the cgroup version
and mode, the current cgroup with its limits and those of its ancestors,
effective_cpus and the cpuset; whether the kernel supports CFS burst and a
slice can be created here; Go's default GOMAXPROCS; how busy the machine is
(/proc/stat over 200ms); and the caveats that follow. It creates nothing.`,
		Example: `  throttlebench inspect
  throttlebench inspect --format json | jq .caveats`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := badinput.Choice("format", o.format, inspect.Formats); err != nil {
				return err
			}
			return runF(cmd.Context(), *o)
		},
	}
	formatFlag(cmd.Flags(), &o.format, inspect.Formats)
	// inspect has no -o: its help names no extension.
	cmd.Flags().Lookup("format").Usage = "output format: " + strings.Join(inspect.Formats, ", ")
	return cmd
}

// inspect is inspect's engine: the machine gathered and written.
func (f *factory) inspect(ctx context.Context, o inspectOptions) error {
	affinity, _ := inspect.Affinity() // unknown (nil) where there is none
	r, err := inspect.Gather(ctx, inspect.Options{
		Root: o.root,
		Process: inspect.Process{
			Affinity: affinity, NumCPU: runtime.NumCPU(), GOMAXPROCS: startGOMAXPROCS,
			GOMAXPROCSEnv: os.Getenv("GOMAXPROCS"), GoVersion: runtime.Version(),
		},
		Busy:  inspect.SampleBusy(o.root, busyWindow),
		Trace: tracer.Probe,
		Model: tracer.Model,
		Driver: func() (string, string) {
			name, why, err := cgroup.ChooseDriver(cgroup.DriverAuto, cgroup.Host{Root: o.root}.DriverFacts(ctx))
			if err != nil {
				return "none", err.Error() // run would exit 2 with it
			}
			return name, why
		},
	})
	if err != nil {
		return err
	}
	return inspect.Write(f.Stdout, r, o.format)
}
