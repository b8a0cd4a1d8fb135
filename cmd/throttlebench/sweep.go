package main

import (
	"context"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

func newCmdSweep(f *factory, runF func(context.Context, options.SweepPlan) error) *cobra.Command {
	run := newRunFlags()
	o := &options.Sweep{Run: run.Shared}
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
			p, err := o.Resolve(cmd.Context(), given(cmd), args, cmd.ArgsLenAtDash(), cmd.InOrStdin(), sweepCommandLine(cmd), f.Stderr)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), p)
		},
	}
	// A sweep is read by people first: a table by default.
	run.register(cmd, config.Batch, sweep.Formats, true)
	run.registerColumns(cmd)
	fl := cmd.Flags()
	fl.StringVar(&o.Plot, "plot", "", "draw the results into this .svg or .png file")
	fl.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress bar, and no line before the sweep saying how many configurations run and about how long")
	fl.IntVar(&o.MaxConfigs, "max-configs", 1000, "refuse a sweep of more configurations than this (a typo in a range can make millions)")
	registerEmit(cmd, &o.Emit)
	fl.StringVar(&o.From, "from", "", "run nothing: show the results in this file (a sweep's --format json, collect's output) as a table in --format and a --plot")
	return cmd
}

// sweep is sweep's engine, for the mode resolved: run here, write for a
// cluster (--emit), or show results read back (--from).
func (f *factory) sweep(ctx context.Context, p options.SweepPlan) error {
	switch p.Mode {
	case options.SweepToShow:
		return sweepFrom(p, f.Stdout)
	case options.SweepToEmit:
		p.Emit.Skipped = skipped(f.Stderr)
		return kube.Emit(p.Emit, f.Stdout)
	}
	return sweepRun(ctx, p, f.Stdout, f.Stderr)
}

// sweepRun runs every configuration here, one after another, and writes
// what they measured.
func sweepRun(ctx context.Context, p options.SweepPlan, stdout, stderr io.Writer) error {
	s, steps := p.Settings, p.Steps
	local := runner.NewLocal() // one tracer for the whole sweep, if traced
	defer local.Close()
	loop := sweep.Loop[*report.Report]{Runner: sweep.RunFunc[*report.Report](runner.Bind(s.Env(), local.Run)), NumCPU: runtime.NumCPU(), Timeout: s.Timeout, What: "sweep", Skipped: skipped(stderr)}
	if !p.Quiet {
		loop.Announce = stderr
		if p.Bar {
			loop.Progress = progressBar(stderr, len(steps)) // cleared by the loop when it ends
		}
	}
	// Rewritten after every configuration: an interrupted sweep keeps what
	// it measured.
	save := func(rows []sweep.Row) error {
		return writeOutput(s.Output, stdout, func(w io.Writer) error { return sweep.WriteRows(w, rows, s.Format, view(s, stdout)) })
	}
	if s.Output != "" {
		loop.Save = save
	}
	rows, err := options.WithDriver(ctx, s, steps, func(steps []sweep.Step) ([]sweep.Row, error) { return loop.Run(ctx, steps) })
	if err != nil {
		return err
	}
	if err := save(rows); err != nil {
		return err
	}
	warnOnce(stderr, s.Format, s.Output, outcomeWarnings(rows, func(r *report.Report) []report.Warning { return closedLoopWarnings(s.Format, r.Warnings) }))
	if p.Plot == "" {
		return nil
	}
	chart, err := plot.Build(rows, plot.Title(rows))
	if err != nil {
		return err
	}
	return plot.Save(p.Plot, chart)
}
