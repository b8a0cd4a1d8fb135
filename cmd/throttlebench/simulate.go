package main

import (
	"context"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/table"
)

func newCmdSimulate(f *factory, runF func(context.Context, options.SimulateRun) error) *cobra.Command {
	o := &options.Simulate{}
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Monte Carlo of the CPU-burst queueing model: does burst make neighbours' periods overrun?",
		Long: `simulate runs the queueing model with which the authors of CPU burst judged
when it is safe: m cgroups share one CPU, each with quota 1/m and a burst
buffer of b quotas, and draw random demand of mean u/m every period; what
the cgroups run beyond the CPU in a period spills into the next. It reports
the worst-case execution time of a period (WCET, in periods: 1 means every
period's work finished within it) with 95% intervals from independent
replicas, and the share of cgroup-periods throttled. No cgroup is touched.

Any of --cgroups, --util and --buffer may be a list or a range, as in sweep;
--grid runs the published table's shape (cgroups 10,20,30 × util 0.1…0.7 ×
buffer 0,1,2,4) for those not given. --dist empirical draws the demand from
a trace written by throttlebench sample (--from). The same --seed gives the
same numbers whatever --jobs.`,
		Example: `  throttlebench simulate --cgroups 10 --util 0.5 --buffer 2 --dist pareto
  throttlebench simulate --grid --dist pareto
  throttlebench simulate --grid --format csv -o grid.csv --plot grid.svg
  throttlebench simulate --dist empirical --from usage.json --util auto --cgroups 10,20 --buffer 0:4:1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := o.Resolve(cmd.Flags().Changed)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), r)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Cgroups, "cgroups", "10", "m, the cgroups sharing the CPU, each with quota 1/m: 1–10000; a list or range; --grid makes it "+options.GridCgroups)
	fl.StringVar(&o.Util, "util", "0.5", "u, the CPU's mean utilisation, 0 < u < 1; a list or range; auto: from the trace (--dist empirical); --grid makes it "+options.GridUtil)
	fl.StringVar(&o.Buffer, "buffer", "2", "b, each cgroup's burst buffer in quotas, ≥ 0, or inf; a list or range; --grid makes it "+options.GridBuffer)
	fl.StringVar(&o.Dist, "dist", "pareto", "the demand's distribution: "+strings.Join(model.Dists, ", "))
	fl.StringVar(&o.Shape, "pareto-shape", "1.5", "--dist pareto: the shape α, above 1 (smaller: heavier tail)")
	fl.StringVar(&o.Cap, "cap", "5", "--dist exp and pareto: every draw is at most this many quotas, 1–1000")
	fl.StringVar(&o.From, "from", "", "--dist empirical: the JSON trace written by throttlebench sample")
	fl.StringVar(&o.Periods, "periods", "1000000", "periods recorded per cell, over all replicas")
	fl.StringVar(&o.Warmup, "warmup", "1000", "periods run and discarded at the start of each replica")
	fl.StringVar(&o.Replicas, "replicas", "10", "independent replicas per cell, 2–1000: the intervals come from them")
	fl.StringVar(&o.Seed, "seed", "1", "the random seed, 0–18446744073709551615")
	fl.StringVar(&o.Jobs, "jobs", strconv.Itoa(runtime.GOMAXPROCS(0)), "cells and replicas run in parallel on this many goroutines, 1–1024; the results do not depend on it")
	fl.BoolVar(&o.Grid, "grid", false, "run the published table's shape for --cgroups, --util and --buffer not given")
	formatFlag(fl, &o.Format, model.SimulateFormats)
	fl.StringVarP(&o.Output, "output", "o", "", "write to this file (atomically) instead of stdout")
	fl.StringVar(&o.Columns, "columns", "", "the table's columns: all, or a list such as util,e_wcet,wcet_p99 "+
		"(default: those that vary between rows and the headline ones, fitted to the terminal's width, 80 when not a terminal)")
	fl.StringVar(&o.Plot, "plot", "", "also draw heat maps of E[WCET] and P(WCET=1) over util × cgroups, one panel per buffer, into this .svg or .png file")
	return cmd
}

// simulate is simulate's engine.
func (f *factory) simulate(ctx context.Context, r options.SimulateRun) error {
	return runSimulate(ctx, r, f.Stdout)
}

// runSimulate runs the plan and writes its cells (and heat maps).
func runSimulate(ctx context.Context, r options.SimulateRun, stdout io.Writer) error {
	cells, err := model.Run(ctx, r.Plan)
	if err != nil {
		return err
	}
	if err := writeOutput(r.Output, stdout, func(w io.Writer) error {
		return model.WriteCells(w, cells, r.Format, r.List, table.View{Columns: r.Columns, Width: tableWidth(r.Output, stdout)})
	}); err != nil {
		return err
	}
	if r.Plot != "" {
		return plot.SaveSimulation(r.Plot, cells)
	}
	return nil
}
