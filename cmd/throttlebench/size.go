package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/sizing"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// sizePlan is size resolved: how and where its windows run, and the search.
type sizePlan struct {
	Settings options.Settings
	Plan     sizing.Plan
}

func newCmdSize(f *factory, runF func(context.Context, sizePlan) error) *cobra.Command {
	run := newRunFlags()
	o := &options.Size{Run: run.Shared}
	cmd := &cobra.Command{
		Use:   "size --slo TARGET [flags] [-- CMD [ARGS...]]",
		Short: "Find the smallest CPU limit that meets a latency or duration target, by experiment, with stated confidence",
		Long: `size measures the unlimited arm, then searches the CPU quota at --period
between --cpus-min and --cpus-max (default: a range from the unlimited arm's
usage) for the smallest level whose windows meet --slo, a sequential test per
level and a bisection across levels. An open-loop parameter (--rate, --work,
…) measures latency's open loop, with --window the length of a window; else
run's closed loop (a built-in workload, or a command after --), a window being
--window iterations. docs/size.md says how it decides.

Exit codes: 0 a recommendation; 4 decided: no limit meets the target (the
unlimited arm fails it); 5 undecided (windows refused for contention, too
few, --budget spent); 1 a failure (the server exited); 2 bad input; 130 and
143 interrupted, the result so far written.`,
		Example: `  sudo throttlebench size --slo 'p99<=20ms' --rate 100 --work 5ms --workers 2 --format text
  sudo throttlebench size --slo 'mean<=1.2x' --budget 10m -- python3 -c 'sum(range(10**7))'`,
		Args: cobra.ArbitraryArgs, // the command, after --
		RunE: func(cmd *cobra.Command, args []string) error {
			s, p, err := o.Resolve(cmd.Context(), given(cmd), args, cmd.ArgsLenAtDash(), f.Stderr)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), sizePlan{Settings: s, Plan: p})
		},
	}
	run.register(cmd, config.Batch|config.Latency, sizing.Formats, false)
	registerTarget(cmd, &o.Target)
	fl := cmd.Flags()
	fl.StringVar(&o.SLO, "slo", "", "the target a window must meet (required): p99<=50ms, or relative to the unlimited arm, mean<=1.2x")
	fl.StringVar(&o.CPUsMin, "cpus-min", "", "the grid's lowest CPUs (default: from the unlimited arm's mean usage and the SLO's slack)")
	fl.StringVar(&o.CPUsMax, "cpus-max", "", "the grid's highest CPUs (default: from the unlimited arm's peak usage, at most all the CPUs)")
	fl.StringVar(&o.Step, "step", "0.05", "the grid's resolution: CPUs (0.05) or a percentage (5%)")
	fl.Float64Var(&o.Confidence, "confidence", size.DefaultConfidence, "the confidence each level's verdict must reach")
	fl.StringVar(&o.Window, "window", "", fmt.Sprintf("one window: the open loop's length (%v if not given), or the closed loop's iterations (%d if not given)", options.SizeOpenWindow, options.SizeClosedWindow))
	fl.DurationVar(&o.Budget, "budget", 0, "stop after this long and report the bracket reached so far (0 = no limit)")
	fl.StringVar(&o.Busy, "busy", "refuse", "a window on a busy machine: refuse it (another is taken) or count it, marked busy")
	fl.StringVar(&o.Plot, "plot", "", "draw every window's figure against the CPU limit, the target and the bracket, into this .svg or .png file")
	return cmd
}

// size is size's engine: the search on this machine, and its result written.
func (f *factory) size(ctx context.Context, sp sizePlan) error {
	s, p, stdout, stderr := sp.Settings, sp.Plan, f.Stdout, f.Stderr
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	local := runner.NewLocal()
	defer local.Close()
	// The open loop's engine is latency's own choice (the built-in loop,
	// or --target with --serve), so a window is measured as latency
	// measures it; the closed loop is run's.
	open := options.LatencyRun{Settings: s, Target: p.Target, Rule: p.Rule}.Measure(local)
	closed := runner.Bind(s.Env(), local.Run)
	window := func(ctx context.Context, o plan.Options) (sizing.Measured, error) {
		if p.Open {
			l, err := open(ctx, o)
			return sizing.Measured{Latency: l}, err
		}
		r, err := closed(ctx, o)
		return sizing.Measured{Run: r}, err
	}
	unl, err := p.Options(math.Inf(1), 0)
	if err != nil {
		return err
	}
	var bar *sweep.Progress // made at the search's first window, when its bound is known
	e := sizing.Engine{Window: window, NumCPU: runtime.NumCPU()}
	e.Progress = func(used, atMost int) {
		if bar == nil {
			if bar = progressBar(stderr, atMost); bar == nil {
				return
			}
		}
		// At most: a bisection's levels, each at its cap; most stop sooner.
		// A closed-loop window's length is unknown ("?").
		left := time.Duration(-1)
		if p.WindowLength > 0 {
			left = time.Duration(atMost-used) * p.WindowLength
		}
		bar.Update(used, left, fmt.Sprintf("window %d of at most %d", used, atMost))
	}
	res, err := options.WithDriver(ctx, s, []sweep.Step{{Opts: unl}}, func(steps []sweep.Step) (sizing.Result, error) {
		p.Base.Parent = steps[0].Opts.Parent // the driver's place
		r, err := e.Run(ctx, p)
		r.Warnings = append(slices.Clip(steps[0].Opts.Notes), r.Warnings...) // what making the place found
		return r, err
	})
	if bar != nil {
		bar.Done()
	}
	if errors.Is(err, context.DeadlineExceeded) && s.Timeout > 0 {
		return fmt.Errorf("size exceeded --timeout %v and was stopped; nothing left behind", s.Timeout)
	}
	if err != nil && res.Windows == 0 { // nothing measured: nothing to write
		return err
	}
	// What was measured is written on every path that measured something:
	// Ctrl-C and a server that exited too, marked incomplete.
	draw := p.Plot != "" && len(res.Arms) > 1
	if p.Plot != "" && !draw {
		res.Warnings = append(res.Warnings, report.Warn(report.KindPlotNotDrawn, "--plot %s not drawn: no level was measured", p.Plot))
	}
	if werr := writeOutput(s.Output, stdout, func(w io.Writer) error { return sizing.Write(w, res, s.Format, tableWidth(s.Output, stdout)) }); werr != nil {
		return werr
	}
	warnOnce(stderr, s.Format, s.Output, unlabelled(append(res.Warnings, res.LeftOut(s.Format)...)))
	if draw {
		if perr := plot.SaveSize(p.Plot, sizing.Chart(res)); perr != nil {
			return perr
		}
	}
	if err != nil {
		return err
	}
	return sizeOutcome(res)
}
