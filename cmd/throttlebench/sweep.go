package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

var sweepFormats = []string{"json", "text", "csv", "markdown", "gobench"}

// sweepAxes are the flags a sweep may vary, outermost first: the CPU share
// varies fastest, so a table reads down a share scan.
var sweepAxes = []struct {
	flag string
	kind sweep.Kind
	def  string
	help string
}{
	{"cost", sweep.Int, "4", "bcrypt cost(s), 4–31"},
	{"workers", sweep.Int, "1", "worker thread count(s)"},
	{"gomaxprocs", sweep.Words, "workers", "GOMAXPROCS value(s): numbers, workers, runtime"},
	{"period", sweep.Duration, "", "CFS period(s), 1ms–1s (default 100ms)"},
	{"burst", sweep.Duration, "", "CFS burst(s), ≤ quota"},
	{"quota", sweep.Duration, "", "CFS quota(s) per period, ≥ 1ms, or max"},
	{"cpus", sweep.Float, "", "CPU share(s): quota = cpus × period"},
}

type sweepOptions struct {
	run        runOptions
	specs      map[string]*string
	plot       string
	quiet      bool
	maxConfigs int
}

func newCmdSweep(stdout, stderr io.Writer) *cobra.Command {
	o := &sweepOptions{specs: map[string]*string{}}
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Run every combination of lists or ranges of limits, workers, GOMAXPROCS and cost, one after another",
		Long: `sweep takes the flags of run; any of --cpus, --quota, --period, --burst,
--workers, --gomaxprocs and --cost may be a list or a range:

  0.1,0.25,0.5,1     a list
  0.1:1:0.1          start:stop:step, stop included (0.1, 0.2, … 1)
  1ms:100ms:*2       start:stop:*factor (1ms, 2ms, 4ms, … 64ms)
  1:4:1,8,16         lists and ranges mix

Every combination runs in its own fresh slice, one after another. A
combination the kernel (or the rules of CFS) rejects is reported as skipped,
and the sweep goes on.`,
		Example: `  sudo throttlebench sweep --cpus 0.1:1:0.1 --workers 1,2 --batch 50 --iterations 5 --plot sweep.png --format text
  sudo throttlebench sweep --period 5ms,10ms,100ms --cpus 0.5 --format csv -o periods.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.execute(cmd, stdout, stderr)
		},
	}
	// A sweep is read by people first: a table by default.
	o.run.registerShared(cmd, sweepFormats, "text")
	f := cmd.Flags()
	for _, a := range sweepAxes {
		o.specs[a.flag] = f.String(a.flag, a.def, a.help+"; a list or range")
	}
	f.StringVar(&o.plot, "plot", "", "draw the results into this .svg or .png file")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar")
	f.IntVar(&o.maxConfigs, "max-configs", 1000, "refuse a sweep of more configurations than this (a typo in a range can make millions)")
	return cmd
}

func (o *sweepOptions) execute(cmd *cobra.Command, stdout, stderr io.Writer) error {
	changed := func(name string) bool { return cmd.Flags().Changed(name) }
	if err := checkChoice("format", o.run.format, sweepFormats); err != nil {
		return err
	}
	if o.plot != "" {
		if ext := strings.ToLower(o.plot[max(0, strings.LastIndex(o.plot, ".")):]); ext != ".svg" && ext != ".png" {
			return usagef("invalid --plot %q: want a file name ending in .svg or .png", o.plot)
		}
		if err := checkOutput("plot", o.plot); err != nil {
			return err
		}
	}
	if changed("cpus") && changed("quota") {
		return usagef("--cpus %q conflicts with --quota %q: give one of them (quota = cpus × period)", *o.specs["cpus"], *o.specs["quota"])
	}
	var axes []sweep.Axis
	for _, a := range sweepAxes {
		if !changed(a.flag) {
			continue
		}
		values, err := sweep.Expand(*o.specs[a.flag], a.kind)
		if err != nil {
			return usagef("invalid --%s %q: %v", a.flag, *o.specs[a.flag], err)
		}
		for _, v := range values {
			if err := checkAxisValue(a.flag, v); err != nil {
				return err
			}
		}
		axes = append(axes, sweep.Axis{Flag: a.flag, Values: values})
	}
	if err := checkInt("max-configs", o.maxConfigs); err != nil {
		return err
	}
	// Counted before any configuration is made: --cpus 0.01:1:0.001
	// --workers 1:1000:1 is 991,000 of them.
	if n, fits := sweep.Size(axes); !fits || n > o.maxConfigs {
		return o.tooBig(axes, n, fits, changed, stderr)
	}
	configs := sweep.Product(axes)

	// Resolve every configuration before running any: bad input stops the
	// sweep with nothing created; a combination that cannot be (a burst
	// above its quota) is skipped.
	type planned struct {
		cfg  sweep.Config
		opts runner.Options
		skip string // why this combination cannot run
	}
	plan := make([]planned, len(configs))
	for i, c := range configs {
		ro := o.optionsFor(c)
		h, err := ro.resolve(changed, stderr)
		var ue *usageError
		switch {
		case errors.As(err, &ue) && ue.combination:
			plan[i] = planned{cfg: c, skip: err.Error()}
		case err != nil:
			return err
		default:
			plan[i] = planned{cfg: c, opts: h}
		}
	}

	ctx := cmd.Context()
	if o.run.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.run.timeout)
		defer cancel()
	}
	var progress *sweep.Progress
	if f, ok := stderr.(*os.File); ok && !o.quiet && term.IsTerminal(int(f.Fd())) {
		progress = sweep.NewProgress(stderr, len(plan))
		defer progress.Done()
	}
	est := sweep.NewEstimator()
	var rn runner.Runner = runner.NewLocal()
	rows := make([]sweep.Row, 0, len(plan))
	var runErr error
	for i, p := range plan {
		if progress != nil {
			var left time.Duration
			for _, q := range plan[i:] {
				if q.skip == "" {
					left += est.Estimate(shapeOf(q.opts))
				}
			}
			progress.Update(i, left, describe(p.cfg))
		}
		if p.skip != "" {
			rows = append(rows, sweep.Row{Config: p.cfg, Skipped: p.skip})
			skipped(progress, stderr, p.cfg, p.skip)
			continue
		}
		rep, err := rn.Run(ctx, p.opts)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, runner.ErrNeedsPrivilege) || errors.Is(err, cgroup.ErrNoCPUController) {
				runErr = err
				break
			}
			// The kernel refused this combination: say so and go on.
			rows = append(rows, sweep.Row{Config: p.cfg, Skipped: err.Error()})
			skipped(progress, stderr, p.cfg, err.Error())
			continue
		}
		est.Learn(rep)
		rows = append(rows, sweep.Row{Config: p.cfg, Report: rep})
		// Rewritten after every configuration: an interrupted sweep keeps
		// what it measured.
		if o.run.output != "" {
			if err := writeOutput(o.run.output, stdout, func(w io.Writer) error { return writeRows(w, rows, o.run.format) }); err != nil {
				return err
			}
		}
	}
	if runErr != nil {
		if errors.Is(runErr, context.DeadlineExceeded) {
			return fmt.Errorf("the sweep exceeded --timeout %v and was stopped after %d configurations; nothing left behind", o.run.timeout, len(rows))
		}
		return runErr
	}
	if o.run.output == "" {
		if err := writeRows(stdout, rows, o.run.format); err != nil {
			return err
		}
	} else if err := writeOutput(o.run.output, stdout, func(w io.Writer) error { return writeRows(w, rows, o.run.format) }); err != nil {
		return err
	}
	if o.plot != "" {
		chart, err := plot.Build(rows, plotTitle(rows))
		if err != nil {
			return err
		}
		if err := plot.Save(o.plot, chart); err != nil {
			return err
		}
	}
	return nil
}

// optionsFor is the run of one configuration: the sweep's flags with this
// configuration's values.
func (o *sweepOptions) optionsFor(c sweep.Config) runOptions {
	ro := o.run
	ro.workers, _ = strconv.Atoi(orDefault(c.Get("workers"), *o.specs["workers"]))
	ro.cost, _ = strconv.Atoi(orDefault(c.Get("cost"), *o.specs["cost"]))
	ro.gomaxprocs = orDefault(c.Get("gomaxprocs"), *o.specs["gomaxprocs"])
	ro.limits = limitFlags{period: c.Get("period"), quota: c.Get("quota"), cpus: c.Get("cpus"), burst: c.Get("burst")}
	return ro
}

// tooBig refuses a sweep of more than --max-configs configurations, saying
// how many there are, where they come from, and how long they would take by
// the CFS model (estimated from up to 1000 of them, evenly spread).
func (o *sweepOptions) tooBig(axes []sweep.Axis, n int, fits bool, changed func(string) bool, stderr io.Writer) error {
	var sizes []string
	for _, a := range axes {
		sizes = append(sizes, fmt.Sprintf("--%s %d", a.Flag, len(a.Values)))
	}
	if !fits {
		return usagef("invalid --max-configs %d: the sweep has more configurations than can be counted (%s values); narrow the lists and ranges",
			o.maxConfigs, strings.Join(sizes, " × "))
	}
	// A seeded random sample: evenly spaced indices would alias with the
	// fastest axis and see only one of its values.
	const samples = 1000
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	est := sweep.NewEstimator()
	var seconds float64
	k := 0
	for range min(n, samples) {
		ro := o.optionsFor(sweep.At(axes, rng.IntN(n)))
		if h, err := ro.resolve(changed, stderr); err == nil {
			seconds += est.EstimateSeconds(shapeOf(h))
			k++
		}
	}
	took := "an unknown time"
	if k > 0 {
		took = "about " + humanDuration(seconds/float64(k)*float64(n))
	}
	raise := fmt.Sprintf("or give --max-configs %d to run them all", n)
	if n > intBounds["max-configs"].hi {
		raise = fmt.Sprintf("at most %d can run in one sweep", intBounds["max-configs"].hi)
	}
	return usagef("invalid --max-configs %d: the sweep has %d configurations (%s values), %s by the CFS model; narrow the lists and ranges, %s",
		o.maxConfigs, n, strings.Join(sizes, " × "), took, raise)
}

// humanDuration rounds a long estimate, in seconds (a Duration overflows at
// 292 years), to what a person plans by.
func humanDuration(s float64) string {
	switch {
	case s >= 2*365*86400:
		return fmt.Sprintf("%.0f years", s/(365*86400))
	case s >= 2*86400:
		return fmt.Sprintf("%.1f days", s/86400)
	case s >= 3600:
		return fmt.Sprintf("%.1f hours", s/3600)
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// checkAxisValue validates one value of a swept flag on its own.
func checkAxisValue(flag, v string) error {
	switch flag {
	case "period":
		_, _, err := limitFlags{period: v}.resolve()
		return err
	case "quota":
		_, _, err := limitFlags{quota: v}.resolve()
		return err
	case "cpus":
		// Checked at the longest period, so that only the value itself counts.
		_, _, err := limitFlags{cpus: v, period: "1s"}.resolve()
		return err
	case "burst":
		d, err := parseMicroDuration("burst", v)
		if err == nil && d < 0 {
			err = usagef("invalid --burst %q: must not be negative", v)
		}
		return err
	case "workers":
		n, _ := strconv.Atoi(v)
		return checkInt("workers", n)
	case "cost":
		n, _ := strconv.Atoi(v)
		return checkInt("cost", n)
	case "gomaxprocs":
		_, err := parseGOMAXPROCS(v, 1)
		return err
	}
	return nil
}

// skipped tells the user on stderr, below the progress bar if there is one.
func skipped(progress *sweep.Progress, stderr io.Writer, c sweep.Config, why string) {
	if progress != nil {
		progress.Done() // clear the bar's line; the next update redraws it
	}
	fmt.Fprintf(stderr, "throttlebench: skipped %s: %s\n", describe(c), why)
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func describe(c sweep.Config) string {
	var parts []string
	for _, p := range c {
		parts = append(parts, p.Flag+"="+p.Value)
	}
	return strings.Join(parts, " ")
}

func shapeOf(h runner.Options) sweep.Shape {
	return sweep.Shape{Cost: h.Bench.Cost, Batch: h.Bench.Batch, Iterations: h.Bench.Iterations, MinTime: h.Bench.MinTime, Warmup: h.Bench.Warmup,
		Workers: h.Bench.Workers, GOMAXPROCS: h.Bench.GOMAXPROCS, CPUs: h.Limits.CPUs(), NumCPU: runtime.NumCPU()}
}

func writeRows(w io.Writer, rows []sweep.Row, format string) error {
	var reports []*report.Report
	for _, r := range rows {
		if r.Report != nil {
			reports = append(reports, r.Report)
		}
	}
	switch format {
	case "json":
		return report.WriteJSON(w, reports)
	case "csv":
		return sweep.WriteCSV(w, rows)
	case "markdown":
		return sweep.WriteMarkdown(w, rows)
	case "gobench":
		return report.WriteGobench(w, reports)
	}
	return sweep.WriteText(w, rows)
}

func plotTitle(rows []sweep.Row) string {
	for _, r := range rows {
		if r.Report != nil {
			h := r.Report.Host
			return fmt.Sprintf("throttlebench sweep on %s (%s, kernel %s, %d CPUs)", h.Hostname, h.CPUModel, h.Kernel, h.NumCPU)
		}
	}
	return "throttlebench sweep"
}
