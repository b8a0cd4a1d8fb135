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
	"github.com/throttlebench/throttlebench/internal/show"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

func newCmdRun(stdout, stderr io.Writer) *cobra.Command {
	o := newRunFlags()
	var sonobuoy string
	cmd := &cobra.Command{
		Use:   "run [flags] [-- CMD [ARGS...]]",
		Short: "Run bcrypt batches, or your own command, in a cgroup slice with the given CPU limits and report statistics",
		Example: `  sudo throttlebench run --cpus 0.1 --workers 2 --batch 50 --iterations 5
  docker run --cpu-period=10000 --cpu-quota=1000 throttlebench:dev run --batch 50
  throttlebench run --cgroup current --format text
  sudo throttlebench run --cpus 0.5 --iterations 10 --format text -- python3 -c 'sum(range(10**7))'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := config.Choice("format", o.format, show.RunFormats); err != nil {
				return err
			}
			if err := o.takeCommand(cmd, args, true); err != nil {
				return err
			}
			s, err := o.settings(cmd.Context(), cmd.Flags().Changed, stderr)
			if err != nil {
				return err
			}
			cfg, err := config.Resolve(o.given(cmd.Flags().Changed))
			if err != nil {
				return err
			}
			if sonobuoy != "" {
				// A plugin's raw result is the JSON result.
				if !cmd.Flags().Changed("format") {
					o.format = "json"
				}
				if err := checkSonobuoy(sonobuoy, cmd.Flags().Changed, o); err != nil {
					return err
				}
			}
			h, err := s.options(cfg)
			if err != nil {
				return err
			}
			if sonobuoy != "" {
				return runSonobuoy(cmd.Context(), s, h, sonobuoy, stdout, stderr)
			}
			return runRun(cmd.Context(), s, h, stdout)
		},
	}
	o.register(cmd, config.Batch, show.RunFormats, false)
	o.registerTrace(cmd, true)
	cmd.Flags().StringVar(&sonobuoy, "sonobuoy-results", "", "as a Sonobuoy plugin (sweep --emit sonobuoy): write the result and the done file into this directory, then stay until stopped")
	return cmd
}

func runRun(ctx context.Context, s settings, h plan.Options, stdout io.Writer) error {
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	local := runner.NewLocal()
	defer local.Close() // the tracer, if --trace attached it
	rep, err := withDriver(ctx, s, []sweep.Step{{Opts: h}}, func(steps []sweep.Step) (*report.Report, error) {
		return local.Run(ctx, runner.Options{Options: steps[0].Opts, Env: s.env()})
	})
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the run exceeded --timeout %v and was stopped; nothing left behind", s.timeout)
	}
	if err != nil {
		return err
	}
	if err := writeOutput(s.output, stdout, func(w io.Writer) error { return show.WriteRun(w, rep, s.format, s.view(stdout)) }); err != nil {
		return err
	}
	warnOnce(s.stderr, s.format, s.output, unlabelled(closedLoopWarnings(s.format, rep.Warnings)))
	return nil
}
