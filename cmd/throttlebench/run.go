package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/show"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// runPlan is run resolved: how and where (Settings) it runs what
// (Opts), and --sonobuoy-results' directory ("" without).
type runPlan struct {
	Settings options.Settings
	Opts     plan.Options
	Sonobuoy string
}

func newCmdRun(f *factory, runF func(context.Context, runPlan) error) *cobra.Command {
	run := newRunFlags()
	o := &options.Run{Run: run.Shared}
	cmd := &cobra.Command{
		Use:   "run [flags] [-- CMD [ARGS...]]",
		Short: "Run bcrypt batches, or your own command, in a cgroup slice with the given CPU limits and report statistics",
		Example: `  sudo throttlebench run --cpus 0.1 --workers 2 --batch 50 --iterations 5
  docker run --cpu-period=10000 --cpu-quota=1000 throttlebench:dev run --batch 50
  throttlebench run --cgroup current --format text
  sudo throttlebench run --cpus 0.5 --iterations 10 --format text -- python3 -c 'sum(range(10**7))'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, h, err := o.Resolve(cmd.Context(), cmd.Flags().Changed, args, cmd.ArgsLenAtDash(), show.RunFormats, f.Stderr)
			if err != nil {
				return err
			}
			traceFiles(&s)
			return runF(cmd.Context(), runPlan{Settings: s, Opts: h, Sonobuoy: o.SonobuoyResults})
		},
	}
	run.register(cmd, config.Batch, show.RunFormats, false)
	run.registerTrace(cmd, true)
	cmd.Flags().StringVar(&o.SonobuoyResults, "sonobuoy-results", "", "as a Sonobuoy plugin (sweep --emit sonobuoy): write the result and the done file into this directory, then stay until stopped")
	return cmd
}

// run is run's engine: here, or as a Sonobuoy plugin.
func (f *factory) run(ctx context.Context, p runPlan) error {
	if p.Sonobuoy != "" {
		return runSonobuoy(ctx, p.Settings, p.Opts, p.Sonobuoy, f.Stdout, f.Stderr)
	}
	return runRun(ctx, p.Settings, p.Opts, f.Stdout)
}

func runRun(ctx context.Context, s options.Settings, h plan.Options, stdout io.Writer) error {
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	local := runner.NewLocal()
	defer local.Close() // the tracer, if --trace attached it
	rep, err := options.WithDriver(ctx, s, []sweep.Step{{Opts: h}}, func(steps []sweep.Step) (*report.Report, error) {
		return local.Run(ctx, runner.Options{Options: steps[0].Opts, Env: s.Env()})
	})
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the run exceeded --timeout %v and was stopped; nothing left behind", s.Timeout)
	}
	if err != nil {
		return err
	}
	if err := writeOutput(s.Output, stdout, func(w io.Writer) error { return show.WriteRun(w, rep, s.Format, view(s, stdout)) }); err != nil {
		return err
	}
	warnOnce(s.Stderr, s.Format, s.Output, unlabelled(closedLoopWarnings(s.Format, rep.Warnings)))
	return nil
}
