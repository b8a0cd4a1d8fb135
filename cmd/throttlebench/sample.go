package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cgroupref"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/sampling"
	"github.com/throttlebench/throttlebench/internal/usage"
)

func newCmdSample(f *factory, runF func(context.Context, usage.Options) error) *cobra.Command {
	o := &options.Sample{}
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Sample a cgroup's CPU usage at the scale the bandwidth controller works (100 ms)",
		Long: `sample reads a cgroup's CPU usage counter (v1 cpuacct.usage, v2 cpu.stat
usage_usec) every --interval for --duration, or until Ctrl-C, and writes the
usage of each interval in CPUs with its summary at that interval and at 1 s,
the share of intervals above --limit, the smallest limit that leaves at most
--target of intervals above it, and the smallest burst that absorbs the spikes
above the limit, each as Kubernetes and Docker spell it (where that burst is
above the kernel's cap, the quota per --period, the period or the limit that
makes room for it); --plot draws the usage over time at both scales, with the
limit. It creates nothing and changes nothing (but with a command, below).

The cgroup is given by its directory (on cgroup v1 in the cpu or the cpuacct
hierarchy), by its path relative to the top of the hierarchy, by --pid, or is
the current one. Ctrl-C ends sampling and writes what was collected: the
normal end without --duration (exit 0); with --duration the output is written
and the exit code says it was cut short (130/143).

sample -- CMD [ARGS...] starts CMD in a cgroup slice of its own, with no limit
(sample measures; --limit only judges the trace), and samples that slice until
CMD exits, --duration passes or Ctrl-C; then CMD is stopped (SIGTERM, SIGKILL
3s later) and the slice removed. Its stdout is discarded and its stderr kept
for its error: a CMD that fails fails the run (exit 1), after the output is
written.`,
		Example: `  sudo throttlebench sample --cgroup /sys/fs/cgroup/cpu/kubepods.slice/pod1 --duration 60s --limit 4
  throttlebench sample --pid 1234 --duration 30s -o usage.json
  throttlebench sample --interval 10ms --duration 5s --format text
  throttlebench sample --duration 60s --limit 2 --plot usage.png --format text
  sudo throttlebench sample --limit 1 -- python3 job.py`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Command, o.Dash = args, cmd.ArgsLenAtDash()
			r, err := o.Resolve()
			if err != nil {
				return err
			}
			return runF(cmd.Context(), r)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Cgroup, "cgroup", "", "the cgroup to sample: its directory, or its path relative to the top of the hierarchy (default: the current one)")
	fl.StringVar(&o.PID, "pid", "", "sample the cgroup of this process")
	fl.StringVar(&o.Interval, "interval", "100ms", "time between readings, 1ms–10s")
	fl.StringVar(&o.Duration, "duration", "0", "how long to sample, from --interval to 24h; 0: until Ctrl-C")
	fl.StringVar(&o.Limit, "limit", "", "a CPU limit to judge the trace against, in CPUs (such as 4 or 0.5)")
	fl.StringVar(&o.Period, "period", "100ms", "the CFS period the advice is for, 1ms–1s: the kernel caps a burst at the quota per period")
	fl.StringVar(&o.Target, "target", "1%", "the share of intervals the advised limit may leave above it, in percent, between 0 and 100")
	formatFlag(fl, &o.Format, usage.Formats)
	fl.StringVarP(&o.Output, "output", "o", "", "write to this file (atomically) instead of stdout")
	fl.StringVar(&o.Plot, "plot", "", "also draw the usage over time, per interval and per 1s, with --limit, into this .svg or .png file")
	fl.BoolVar(&o.Trace, "trace", false, "also record when the kernel throttled the cgroup, with eBPF (root)")
	fl.StringVar(&o.TraceOut, "trace-out", "", "with --trace (implied): write the raw throttle events to this file (JSON, or CSV for a .csv name)")
	return cmd
}

// sampleOn samples cg through its usage counter, held open, on a timerfd
// clock: a reading is one wake-up of one thread and one read (see
// usage.PollClock).
// sample is sample's engine: a command started in a slice of its own, or
// the cgroup named (checked as it is found: a cgroup or process that is
// not there is bad input) sampled.
func (f *factory) sample(ctx context.Context, r usage.Options) error {
	if r.Command != nil {
		return sampleCommand(ctx, r, f.Stdout, f.Stderr)
	}
	cg, err := cgroupref.Sampled(r, cgroup.Host{Root: "/"})
	if err != nil {
		return err
	}
	return sampleOn(ctx, r, cg, nil, f.Stdout, f.Stderr)
}

func sampleOn(ctx context.Context, r usage.Options, cg cgroup.Cgroup, begin func() error, stdout, stderr io.Writer) error {
	counter, err := cg.OpenUsage()
	if err != nil {
		return err
	}
	defer counter.Close()
	clock, err := usage.OpenClock()
	if err != nil {
		return err
	}
	defer clock.Close()
	return runSample(ctx, r, cg, counter, clock, begin, stdout, stderr)
}

// runSample samples cg through counter (sampling.Run) and writes what it
// collected, also when interrupted or when the cgroup went away: a trace
// cut short is still a trace. begin (sample -- CMD: the command's
// go-ahead), when set, is called just before the first reading.
func runSample(ctx context.Context, r usage.Options, cg cgroup.Cgroup, counter usage.Counter, clock usage.Clock, begin func() error, stdout, stderr io.Writer) error {
	if n := sampling.Notice(r, cg); n != "" {
		fmt.Fprintln(stderr, n)
	}
	f, after, err := sampling.Run(ctx, r, cg, counter, clock, begin)
	if err != nil {
		return err
	}
	if err := writeOutput(r.Output, stdout, func(w io.Writer) error { return usage.Write(w, f, r.Format) }); err != nil {
		return err
	}
	warnOnce(stderr, r.Format, r.Output, unlabelled(f.Warnings))
	if r.Plot != "" {
		if err := plot.SaveUsage(r.Plot, f); err != nil {
			return err
		}
	}
	return after
}
