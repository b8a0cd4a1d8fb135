package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/stat"

	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// Bounds of simulate's flags: the work is periods × cgroups per cell, so
// they keep a typo from asking for days; the buffer and cap are in quotas.
// The percentiles come from every period's backlog above 0, kept until the
// cell is done (8 bytes each): 10⁸ periods is at most 800 MB while a cell
// runs, and far less below saturation.
const (
	maxSimCgroups  = 10000
	maxSimBuffer   = 1e6
	maxSimCap      = 1000
	maxSimShape    = 100
	minSimPeriods  = 100
	maxSimPeriods  = 1e8
	maxSimWarmup   = 1e8
	maxSimReplicas = 1000
	maxSimCells    = 10000
)

// The published table's shape (cpuburst-simulator), which --grid runs.
const (
	gridCgroups = "10,20,30"
	gridUtil    = "0.1:0.7:0.1"
	gridBuffer  = "0,1,2,4"
)

type simulateOptions struct {
	cgroups, util, buffer, dist, shape, cap, from string
	periods, warmup, replicas, seed, jobs         string
	grid                                          bool
	format, output, plot                          string
}

// simulateRun is what the flags resolve to.
type simulateRun struct {
	plan           model.Plan
	list           bool // an array of cells in JSON
	format, output string
	plot           string
}

func newCmdSimulate(stdout, stderr io.Writer) *cobra.Command {
	o := &simulateOptions{}
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
			r, err := o.resolve(cmd.Flags().Changed)
			if err != nil {
				return err
			}
			return runSimulate(cmd.Context(), r, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.cgroups, "cgroups", "10", "m, the cgroups sharing the CPU, each with quota 1/m: 1–10000; a list or range ("+gridCgroups+" with --grid)")
	f.StringVar(&o.util, "util", "0.5", "u, the CPU's mean utilisation, 0 < u < 1; a list or range ("+gridUtil+" with --grid); auto: from the trace (--dist empirical)")
	f.StringVar(&o.buffer, "buffer", "2", "b, each cgroup's burst buffer in quotas, ≥ 0, or inf; a list or range ("+gridBuffer+" with --grid)")
	f.StringVar(&o.dist, "dist", "pareto", "the demand's distribution: "+strings.Join(model.Dists, ", "))
	f.StringVar(&o.shape, "pareto-shape", "1.5", "--dist pareto: the shape α, above 1 (smaller: heavier tail)")
	f.StringVar(&o.cap, "cap", "5", "--dist exp and pareto: every draw is at most this many quotas, 1–1000")
	f.StringVar(&o.from, "from", "", "--dist empirical: the JSON trace written by throttlebench sample")
	f.StringVar(&o.periods, "periods", "1000000", "periods recorded per cell, over all replicas")
	f.StringVar(&o.warmup, "warmup", "1000", "periods run and discarded at the start of each replica")
	f.StringVar(&o.replicas, "replicas", "10", "independent replicas per cell, 2–1000: the intervals come from them")
	f.StringVar(&o.seed, "seed", "1", "the random seed, 0–18446744073709551615")
	f.StringVar(&o.jobs, "jobs", strconv.Itoa(runtime.GOMAXPROCS(0)), "cells and replicas run in parallel on this many goroutines, 1–1024; the results do not depend on it")
	f.BoolVar(&o.grid, "grid", false, "run the published table's shape for --cgroups, --util and --buffer not given")
	f.StringVar(&o.format, "format", "text", "output format: "+strings.Join(model.SimulateFormats, ", "))
	f.StringVarP(&o.output, "output", "o", "", "write to this file (atomically) instead of stdout")
	f.StringVar(&o.plot, "plot", "", "also draw heat maps of E[WCET] and P(WCET=1) over util × cgroups, one panel per buffer, into this .svg or .png file")
	return cmd
}

// resolve checks every flag, and reads the trace, before anything runs.
func (o *simulateOptions) resolve(changed func(string) bool) (simulateRun, error) {
	var r simulateRun
	if o.grid {
		for _, g := range []struct {
			flag string
			v    *string
			grid string
		}{{"cgroups", &o.cgroups, gridCgroups}, {"util", &o.util, gridUtil}, {"buffer", &o.buffer, gridBuffer}} {
			if !changed(g.flag) {
				*g.v = g.grid
			}
		}
	}
	if err := checkChoice("dist", o.dist, model.Dists); err != nil {
		return r, err
	}
	dist := model.Dist(slices.Index(model.Dists, o.dist))
	var err error
	var ms []int
	vs, err := sweep.Expand(o.cgroups, sweep.Int)
	if err != nil {
		return r, usagef("invalid --cgroups %q: %v", o.cgroups, err)
	}
	for _, v := range vs {
		m, err := strconv.Atoi(v)
		if err != nil || m < 1 || m > maxSimCgroups {
			return r, usagef("invalid --cgroups %q: want whole numbers between 1 and %d", v, maxSimCgroups)
		}
		ms = append(ms, m)
	}
	auto := strings.TrimSpace(o.util) == "auto"
	var us []float64
	if auto {
		if dist != model.Empirical {
			return r, usagef("invalid --util %q: auto takes the utilisation from a trace: only with --dist empirical", o.util)
		}
	} else if us, err = floats("util", o.util, "a utilisation above 0 and below 1, such as 0.5", func(u float64) bool { return u > 0 && u < 1 }); err != nil {
		return r, err
	}
	bs, err := floats("buffer", o.buffer, fmt.Sprintf("a buffer of 0 to %g quotas, or inf", float64(maxSimBuffer)), func(b float64) bool { return b >= 0 && b <= maxSimBuffer || math.IsInf(b, 1) }, "inf")
	if err != nil {
		return r, err
	}
	base := model.BurstParams{Dist: dist}
	for _, c := range []struct {
		flag string
		ok   bool
		why  string
	}{
		{"pareto-shape", dist == model.Pareto, "applies only to --dist pareto"},
		{"cap", dist != model.Empirical, "applies only to --dist exp and pareto (a trace is drawn as recorded)"},
		{"from", dist == model.Empirical, "applies only to --dist empirical"},
	} {
		if changed(c.flag) && !c.ok {
			v := map[string]string{"pareto-shape": o.shape, "cap": o.cap, "from": o.from}[c.flag]
			return r, usagef("--%s %q %s (--dist is %s)", c.flag, v, c.why, o.dist)
		}
	}
	if base.Shape, err = strconv.ParseFloat(strings.TrimSpace(o.shape), 64); err != nil || !(base.Shape > 1 && base.Shape <= maxSimShape) {
		return r, usagef("invalid --pareto-shape %q: want a number above 1 and at most %d, such as 1.5 (at 1 or below the mean is infinite)", o.shape, maxSimShape)
	}
	if base.Cap, err = strconv.ParseFloat(strings.TrimSpace(o.cap), 64); err != nil || !(base.Cap >= 1 && base.Cap <= maxSimCap) {
		return r, usagef("invalid --cap %q: want a number of quotas from 1 to %d, such as 5", o.cap, maxSimCap)
	}
	if dist == model.Empirical {
		if o.from == "" {
			return r, usagef("--dist empirical needs --from FILE: a trace written by throttlebench sample (its JSON)")
		}
		f, err := usage.ReadFile(o.from)
		if err != nil {
			return r, usagef("invalid --from %q: %v", o.from, err)
		}
		base.Trace = f.UsageCPUs
	}
	p := &r.plan
	if p.Periods, err = wholeNumber("periods", o.periods, minSimPeriods, maxSimPeriods); err != nil {
		return r, err
	}
	if p.Warmup, err = wholeNumber("warmup", o.warmup, 0, maxSimWarmup); err != nil {
		return r, err
	}
	if p.Replicas, err = wholeNumber("replicas", o.replicas, 2, maxSimReplicas); err != nil {
		return r, err
	}
	if p.Jobs, err = wholeNumber("jobs", o.jobs, 1, 1024); err != nil {
		return r, err
	}
	if p.Periods < p.Replicas {
		return r, usagef("invalid --periods %d: want at least --replicas %d, one period per replica", p.Periods, p.Replicas)
	}
	if p.Seed, err = strconv.ParseUint(strings.TrimSpace(o.seed), 10, 64); err != nil {
		return r, usagef("invalid --seed %q: want a whole number between 0 and %d", o.seed, uint64(math.MaxUint64))
	}
	if n := len(ms) * max(len(us), 1) * len(bs); n > maxSimCells {
		return r, usagef("--cgroups %q × --util %q × --buffer %q is %d cells: want at most %d", o.cgroups, o.util, o.buffer, n, maxSimCells)
	}
	// Cells with the buffer slowest and the utilisation fastest: the text
	// table reads as one block per buffer, and within it one run of rising
	// utilisation per number of cgroups.
	for _, b := range bs {
		for _, m := range ms {
			c := base
			c.Cgroups, c.Buffer = m, b
			if !auto {
				for _, u := range us {
					c.Util = u
					p.Cells = append(p.Cells, c)
				}
				continue
			}
			// Unscaled: each cgroup draws the trace's CPUs as its demand per
			// period, so the CPU's utilisation is m × the trace's mean.
			c.Util = float64(m) * stat.Mean(base.Trace, nil)
			if !(c.Util < 1) {
				return r, usagef("--util auto with --cgroups %d: the trace's mean of %.4g CPUs × %d cgroups is a utilisation of %.4g: want below 1 (fewer --cgroups, or a --util to scale to)", m, c.Util/float64(m), m, c.Util)
			}
			p.Cells = append(p.Cells, c)
		}
	}
	if err := checkChoice("format", o.format, model.SimulateFormats); err != nil {
		return r, err
	}
	if err := checkOutput("output", o.output); err != nil {
		return r, err
	}
	if err := checkPlot(o.plot); err != nil {
		return r, err
	}
	r.list = o.grid || len(p.Cells) > 1 || strings.ContainsAny(o.cgroups+o.util+o.buffer, ",:")
	r.format, r.output, r.plot = o.format, o.output, o.plot
	return r, nil
}

// floats expands a list or range flag into values that pass ok.
func floats(flag, spec, want string, ok func(float64) bool, words ...string) ([]float64, error) {
	vs, err := sweep.Expand(spec, sweep.Float, words...)
	if err != nil {
		return nil, usagef("invalid --%s %q: %v", flag, spec, err)
	}
	out := make([]float64, len(vs))
	for i, v := range vs {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !ok(x) {
			return nil, usagef("invalid --%s %q: want %s (a list or range of them)", flag, v, want)
		}
		out[i] = x
	}
	return out, nil
}

// wholeNumber parses a count, also written as 1e6.
func wholeNumber(flag, v string, lo, hi float64) (int, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || x != math.Trunc(x) || !(x >= lo && x <= hi) {
		return 0, usagef("invalid --%s %q: want a whole number between %g and %g", flag, v, lo, hi)
	}
	return int(x), nil
}

// runSimulate runs the plan and writes its cells (and heat maps).
func runSimulate(ctx context.Context, r simulateRun, stdout io.Writer) error {
	cells, err := model.Run(ctx, r.plan)
	if err != nil {
		return err
	}
	if err := writeOutput(r.output, stdout, func(w io.Writer) error { return model.WriteCells(w, cells, r.format, r.list) }); err != nil {
		return err
	}
	if r.plot != "" {
		return plot.SaveSimulation(r.plot, cells)
	}
	return nil
}
