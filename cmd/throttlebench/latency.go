package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

func newCmdLatency(f *factory, runF func(context.Context, options.LatencyRun) error) *cobra.Command {
	run := newRunFlags()
	o := &options.Latency{Run: run.Shared}
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
			r, err := o.Resolve(cmd.Context(), given(cmd), args, cmd.ArgsLenAtDash(), f.Stderr)
			if err != nil {
				return err
			}
			traceFiles(&r.Settings)
			return runF(cmd.Context(), r)
		},
	}
	run.register(cmd, config.Latency, latency.Formats, true)
	run.registerTrace(cmd, false)
	run.registerColumns(cmd)
	registerTarget(cmd, &o.Target)
	fl := cmd.Flags()
	fl.StringVar(&o.Plot, "plot", "", "draw p99 and p50 against the rate or the CPUs, one line per burst (against the burst where only it varies), into this .svg or .png file; with --trace and one configuration, its timeline instead")
	fl.IntVar(&o.MaxConfigs, "max-configs", 1000, "refuse more configurations than this (a typo in a range can make millions)")
	fl.BoolVar(&o.Summary, "summary", false, "--instances: leave out requests[] (every request's parts), keep their percentiles")
	return cmd
}

// latency is latency's engine.
func (f *factory) latency(ctx context.Context, r options.LatencyRun) error {
	return latencyRun(ctx, r, f.Stdout, f.Stderr)
}

// latencyRun runs the configurations one after another, on the engine
// resolved, and writes what they measured.
func latencyRun(ctx context.Context, r options.LatencyRun, stdout, stderr io.Writer) error {
	s := r.Settings
	// Rewritten after every configuration: an interrupted list keeps what
	// it measured.
	save := func(rows []latency.Row) error {
		return writeOutput(s.Output, stdout, func(w io.Writer) error { return latency.Write(w, rows, s.Format, r.List, view(s, stdout)) })
	}
	local := runner.NewLocal() // one tracer for the whole list (--trace)
	defer local.Close()
	loop := sweep.Loop[*report.Latency]{Runner: sweep.RunFunc[*report.Latency](r.Measure(local)), Timeout: s.Timeout, What: "run", Skipped: skipped(stderr)}
	loop.Announce, loop.Progress = stderr, progressBar(stderr, len(r.Steps))
	if s.Output != "" {
		loop.Save = save
	}
	rows, err := options.WithDriver(ctx, s, r.Steps, func(steps []sweep.Step) ([]latency.Row, error) { return loop.Run(ctx, steps) })
	if err != nil {
		return err
	}
	if err := save(rows); err != nil {
		return err
	}
	warnOnce(stderr, s.Format, s.Output, latencyWarnings(rows))
	if r.Plot != "" && !r.Timeline {
		if err := plot.SaveLatency(r.Plot, rows); err != nil {
			return err
		}
	}
	// Judged once the output is written: a failed target's result stays.
	return options.TargetFailed(rows, r.Rule)
}
