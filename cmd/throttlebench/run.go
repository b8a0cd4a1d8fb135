package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/runopts"
	"github.com/throttlebench/throttlebench/internal/show"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

func newCmdRun(stdout, stderr io.Writer) *cobra.Command {
	run := newRunFlags()
	o := &runopts.Run{Run: run.Flags}
	cmd := &cobra.Command{
		Use:   "run [flags] [-- CMD [ARGS...]]",
		Short: "Run bcrypt batches, or your own command, in a cgroup slice with the given CPU limits and report statistics",
		Example: `  sudo throttlebench run --cpus 0.1 --workers 2 --batch 50 --iterations 5
  docker run --cpu-period=10000 --cpu-quota=1000 throttlebench:dev run --batch 50
  throttlebench run --cgroup current --format text
  sudo throttlebench run --cpus 0.5 --iterations 10 --format text -- python3 -c 'sum(range(10**7))'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, h, err := o.Resolve(cmd.Context(), cmd.Flags().Changed, args, cmd.ArgsLenAtDash(), show.RunFormats, stderr)
			switch {
			case err != nil:
				return err
			case o.SonobuoyResults != "":
				return runSonobuoy(cmd.Context(), s, h, o.SonobuoyResults, stdout, stderr)
			}
			return runRun(cmd.Context(), s, h, stdout)
		},
	}
	run.register(cmd, config.Batch, show.RunFormats, false)
	run.registerTrace(cmd, true)
	cmd.Flags().StringVar(&o.SonobuoyResults, "sonobuoy-results", "", "as a Sonobuoy plugin (sweep --emit sonobuoy): write the result and the done file into this directory, then stay until stopped")
	return cmd
}

func runRun(ctx context.Context, s runopts.Settings, h plan.Options, stdout io.Writer) error {
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	local := runner.NewLocal()
	defer local.Close() // the tracer, if --trace attached it
	rep, err := runopts.WithDriver(ctx, s, []sweep.Step{{Opts: h}}, func(steps []sweep.Step) (*report.Report, error) {
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
