package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/fleet"
	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/target"
)

type latencyOptions struct {
	run        *runFlags
	plot       string
	maxConfigs int
	summary    bool
	target     targetFlags
}

func newCmdLatency(stdout, stderr io.Writer) *cobra.Command {
	o := &latencyOptions{run: newRunFlags()}
	cmd := &cobra.Command{
		Use:   "latency",
		Short: "Serve requests arriving on a schedule inside a cgroup slice and report response times from the scheduled arrival",
		Long: `latency runs an open loop in a slice with the given CPU limits: requests
arrive on a schedule fixed up front (--rate, --arrivals, --seed), each needs
--work of CPU time (a loop run until its thread's CPU clock says so) and may
--wait; --workers threads serve them, each waking on its own timer, and
arrivals that find them all busy wait in a queue of --queue. Response time
runs from the scheduled arrival to completion, so a worker that wakes late
(throttled too) cannot hide latency; floor_ms is the harness's own floor.

Any of ` + listFlags(config.Latency) + ` may be a list or a range, as in sweep:
the configurations run one after another on the same arrival schedule, one
row each, so --burst 0,100ms is a direct A/B.

--instances serves the requests with instances instead, as a function
platform does: each instance is a process in a slice of its own with the
full limits, which pays a cold start (--init of CPU, --init-memory touched)
and serves up to --concurrency requests at once; this process, in no slice,
dispatches them: per-request (one request at a time per instance, a new one
when none is idle), shared (one instance), pool:N (up to N). An instance
idle for --keep-alive is retired. --arrivals once --count N sends N requests
at the same instant.

--target URL sends the requests to an HTTP server instead, from this
process, outside any slice: with --serve -- CMD started in the slice for
each configuration and stopped after; without, a server already running,
whose cgroup --cgroup PATH names for the counters and --trace (never
written).`,
		Example: `  sudo throttlebench latency --cpus 2 --workers 4 --rate 200 --work 5ms --arrivals onoff --on 50ms --off 450ms --duration 20s --format text
  sudo throttlebench latency --cpus 1 --burst 0,100ms --workers 4 --rate 46 --work 5ms --arrivals onoff --on 150ms --off 600ms --duration 25s --format text
  docker run --cpus 1 throttlebench:dev latency --rate 50 --work 5ms --format text
  sudo throttlebench latency --target http://127.0.0.1:8080/ --cpus 0.5 --burst 0,50ms --trace --rate 40 --arrivals onoff --on 150ms --off 600ms --duration 27s --serve -- python3 docs/examples/cpu_server.py 8080 5
  sudo throttlebench latency --cpus 1 --instances per-request,shared --concurrency 10 --arrivals once --count 10 --work 100ms --wait 2s --init 70ms --init-memory 80MB --format text`,
		Args: cobra.ArbitraryArgs, // --serve's command, after --
		RunE: func(cmd *cobra.Command, args []string) error {
			tgt, err := o.target.resolve(cmd, args, o.run, o.summary)
			if err != nil {
				return err
			}
			return o.execute(cmd.Context(), cmd.Flags().Changed, tgt, stdout, stderr)
		},
	}
	o.run.register(cmd, config.Latency, latency.Formats, true)
	o.run.registerTrace(cmd, false)
	o.run.registerColumns(cmd)
	o.target.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.plot, "plot", "", "draw p99 and p50 against the rate or the CPUs, one line per burst, into this .svg or .png file; with --trace and one configuration, its timeline instead")
	f.IntVar(&o.maxConfigs, "max-configs", 1000, "refuse more configurations than this (a typo in a range can make millions)")
	f.BoolVar(&o.summary, "summary", false, "--instances: leave out requests[] (every request's parts), keep their percentiles")
	return cmd
}

// execute: flags → plan → configurations one after another → output.
func (o *latencyOptions) execute(ctx context.Context, changed func(string) bool, tgt *target.Target, stdout, stderr io.Writer) error {
	onInstances := changed("instances")
	if err := o.checkInstances(onInstances, changed); err != nil {
		return err
	}
	columns := func(keys []string) []string { return latency.Columns(keys, onInstances) }
	if tgt != nil {
		columns = latency.TargetColumns
	}
	s, steps, err := o.run.plan(ctx, config.Latency, changed, latency.Formats, o.plot, o.maxConfigs, columns, stderr)
	if err != nil {
		return err
	}
	list := len(steps) > 1
	// A single configuration that cannot be is bad input, as in run: there
	// is no other to go on with.
	if !list && steps[0].Skip != "" {
		return config.Usagef("", "%s", steps[0].Skip)
	}
	if list && s.out.events != "" {
		return config.Usagef("trace-out", "--trace-out %q takes the events of one configuration; this list has %d", s.out.events, len(steps))
	}
	// Traced, one configuration's --plot is its timeline; a list's, the
	// p99/p50 plot as without --trace.
	timeline := s.trace && !list && o.plot != ""
	if timeline {
		s.out.timeline, s.out.title = o.plot, "throttlebench latency --trace: "+sweep.Describe(steps[0].Config)
	}

	// Rewritten after every configuration: an interrupted list keeps what
	// it measured.
	save := func(rows []latency.Row) error {
		return writeOutput(s.output, stdout, func(w io.Writer) error { return latency.Write(w, rows, s.format, list, s.view(stdout)) })
	}
	local := runner.NewLocal() // one tracer for the whole list (--trace)
	defer local.Close()
	instances := &fleet.Fleet{Local: local}
	measure := runner.Bind(s.env(), func(ctx context.Context, opts runner.Options) (*report.Latency, error) {
		if tgt != nil {
			return measureTarget(ctx, local, opts, tgt, o.target.rule)
		}
		if !onInstances {
			return local.Latency(ctx, opts)
		}
		rep, err := instances.Run(ctx, opts)
		if err == nil && o.summary && rep.InstancesResult != nil {
			rep.Requests = nil
		}
		return rep, err
	})
	loop := sweep.Loop[*report.Latency]{Runner: sweep.RunFunc[*report.Latency](measure), Timeout: s.timeout, What: "run",
		Skipped: func(c sweep.Config, why string) {
			fmt.Fprintf(stderr, "throttlebench: skipped %s: %s\n", sweep.Describe(c), why)
		}}
	loop.Announce, loop.Progress = stderr, progressBar(stderr, len(steps))
	if s.output != "" {
		loop.Save = save
	}
	rows, err := withDriver(ctx, s, steps, func(steps []sweep.Step) ([]latency.Row, error) { return loop.Run(ctx, steps) })
	if err != nil {
		return err
	}
	if err := save(rows); err != nil {
		return err
	}
	warnOnce(stderr, s.format, s.output, latencyWarnings(rows))
	if o.plot != "" && !timeline {
		if err := plot.SaveLatency(o.plot, rows); err != nil {
			return err
		}
	}
	// Judged once the output is written: a failed target's result stays.
	return targetFailed(rows, o.target.rule)
}
