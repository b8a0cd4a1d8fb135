package main

import (
	"context"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
)

func newCmdSimulate(stdout, stderr io.Writer) *cobra.Command {
	o := &sweep.Simulation{}
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
			return runSimulate(cmd.Context(), r, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Cgroups, "cgroups", "10", "m, the cgroups sharing the CPU, each with quota 1/m: 1–10000; a list or range; --grid makes it "+sweep.GridCgroups)
	f.StringVar(&o.Util, "util", "0.5", "u, the CPU's mean utilisation, 0 < u < 1; a list or range; auto: from the trace (--dist empirical); --grid makes it "+sweep.GridUtil)
	f.StringVar(&o.Buffer, "buffer", "2", "b, each cgroup's burst buffer in quotas, ≥ 0, or inf; a list or range; --grid makes it "+sweep.GridBuffer)
	f.StringVar(&o.Dist, "dist", "pareto", "the demand's distribution: "+strings.Join(model.Dists, ", "))
	f.StringVar(&o.Shape, "pareto-shape", "1.5", "--dist pareto: the shape α, above 1 (smaller: heavier tail)")
	f.StringVar(&o.Cap, "cap", "5", "--dist exp and pareto: every draw is at most this many quotas, 1–1000")
	f.StringVar(&o.From, "from", "", "--dist empirical: the JSON trace written by throttlebench sample")
	f.StringVar(&o.Periods, "periods", "1000000", "periods recorded per cell, over all replicas")
	f.StringVar(&o.Warmup, "warmup", "1000", "periods run and discarded at the start of each replica")
	f.StringVar(&o.Replicas, "replicas", "10", "independent replicas per cell, 2–1000: the intervals come from them")
	f.StringVar(&o.Seed, "seed", "1", "the random seed, 0–18446744073709551615")
	f.StringVar(&o.Jobs, "jobs", strconv.Itoa(runtime.GOMAXPROCS(0)), "cells and replicas run in parallel on this many goroutines, 1–1024; the results do not depend on it")
	f.BoolVar(&o.Grid, "grid", false, "run the published table's shape for --cgroups, --util and --buffer not given")
	formatFlag(f, &o.Format, model.SimulateFormats)
	f.StringVarP(&o.Output, "output", "o", "", "write to this file (atomically) instead of stdout")
	f.StringVar(&o.Columns, "columns", "", "the table's columns: all, or a list such as util,e_wcet,wcet_p99 "+
		"(default: those that vary between rows and the headline ones, fitted to the terminal's width, 80 when not a terminal)")
	f.StringVar(&o.Plot, "plot", "", "also draw heat maps of E[WCET] and P(WCET=1) over util × cgroups, one panel per buffer, into this .svg or .png file")
	return cmd
}

// runSimulate runs the plan and writes its cells (and heat maps).
func runSimulate(ctx context.Context, r sweep.SimulationRun, stdout io.Writer) error {
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
