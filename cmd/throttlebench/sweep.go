package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

type sweepOptions struct {
	run        *runFlags
	plot       string
	quiet      bool
	maxConfigs int
	emit       *emitOptions
	// commandLine is the sweep's flags as given, for what --emit writes.
	commandLine string
	// from is a results file to show instead of running.
	from string
}

func newCmdSweep(stdout, stderr io.Writer) *cobra.Command {
	o := &sweepOptions{run: newRunFlags(), emit: &emitOptions{}}
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Run every combination of lists or ranges of limits, workers, GOMAXPROCS and cost, one after another",
		Long: `sweep takes the flags of run; any of ` + listFlags(config.Batch) + ` may be a list or a range:

  0.1,0.25,0.5,1     a list
  0.1:1:0.1          start:stop:step, stop included (0.1, 0.2, … 1)
  1ms:100ms:*2       start:stop:*factor (1ms, 2ms, 4ms, … 64ms)
  1:4:1,8,16         lists and ranges mix

Every combination runs in its own fresh slice, one after another. A
combination the kernel (or the rules of CFS) rejects is reported as skipped,
and the sweep goes on.`,
		Example: `  sudo throttlebench sweep --cpus 0.1:1:0.1 --workers 1,2 --batch 50 --iterations 5 --plot sweep.png --format text
  sudo throttlebench sweep --period 5ms,10ms,100ms --cpus 0.5 --format csv -o periods.csv
  throttlebench sweep --cpus 0.25,0.5,1 --per-node --nodes-from nodes.txt --emit kubernetes -o jobs.yaml
  throttlebench sweep --from results.json --plot nodes.svg`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.emitFlagsAlone(cmd.Flags().Changed); err != nil {
				return err
			}
			if err := o.run.takeCommand(cmd, args, !cmd.Flags().Changed("emit")); err != nil {
				return err
			}
			if cmd.Flags().Changed("from") {
				return o.fromResults(cmd.Flags(), stdout)
			}
			if cmd.Flags().Changed("emit") {
				o.commandLine = sweepCommandLine(cmd)
				if o.run.argv != nil {
					o.commandLine += " -- " + strings.Join(o.run.argv, " ")
				}
				return o.emitted(cmd.Context(), cmd.Flags().Changed, cmd.InOrStdin(), stdout, stderr)
			}
			return o.execute(cmd.Context(), cmd.Flags().Changed, stdout, stderr)
		},
	}
	// A sweep is read by people first: a table by default.
	o.run.register(cmd, config.Batch, sweep.Formats, true)
	o.run.registerColumns(cmd)
	f := cmd.Flags()
	f.StringVar(&o.plot, "plot", "", "draw the results into this .svg or .png file")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar, and no line before the sweep saying how many configurations run and about how long")
	f.IntVar(&o.maxConfigs, "max-configs", 1000, "refuse a sweep of more configurations than this (a typo in a range can make millions)")
	o.emit.register(cmd)
	f.StringVar(&o.from, "from", "", "run nothing: show the results in this file (a sweep's --format json, collect's output) as a table in --format and a --plot")
	return cmd
}

// execute: flags → spec → plan → loop → output.
func (o *sweepOptions) execute(ctx context.Context, changed func(string) bool, stdout, stderr io.Writer) error {
	s, steps, err := o.run.plan(ctx, config.Batch, changed, sweep.Formats, o.plot, o.maxConfigs, sweep.Columns, stderr)
	if err != nil {
		return err
	}

	local := runner.NewLocal() // one tracer for the whole sweep, if traced
	defer local.Close()
	loop := sweep.Loop[*report.Report]{Runner: sweep.RunFunc[*report.Report](runner.Bind(s.env(), local.Run)), NumCPU: runtime.NumCPU(), Timeout: s.timeout, What: "sweep",
		Skipped: func(c sweep.Config, why string) {
			fmt.Fprintf(stderr, "throttlebench: skipped %s: %s\n", sweep.Describe(c), why)
		}}
	if !o.quiet {
		loop.Announce = stderr
		// A command's output on stderr (--show-output) and a bar redrawn
		// every second would cut each other's lines.
		if *o.run.values["show-output"] != "true" {
			loop.Progress = progressBar(stderr, len(steps)) // cleared by the loop when it ends
		}
	}
	// Rewritten after every configuration: an interrupted sweep keeps what
	// it measured.
	save := func(rows []sweep.Row) error {
		return writeOutput(s.output, stdout, func(w io.Writer) error { return sweep.WriteRows(w, rows, s.format, s.view(stdout)) })
	}
	if s.output != "" {
		loop.Save = save
	}
	rows, err := withDriver(ctx, s, steps, func(steps []sweep.Step) ([]sweep.Row, error) { return loop.Run(ctx, steps) })
	if err != nil {
		return err
	}
	if err := save(rows); err != nil {
		return err
	}
	warnOnce(stderr, s.format, s.output, outcomeWarnings(rows, func(r *report.Report) []string { return closedLoopWarnings(s.format, r.Warnings) }))
	if o.plot != "" {
		chart, err := plot.Build(rows, plot.Title(rows))
		if err != nil {
			return err
		}
		return plot.Save(o.plot, chart)
	}
	return nil
}
