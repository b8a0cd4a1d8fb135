package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/compare"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/words"
)

// comparePlan is compare resolved: how, and the two files.
type comparePlan struct {
	Run      compare.Run
	Old, New string
}

func newCmdCompare(f *factory, runF func(context.Context, comparePlan) error) *cobra.Command {
	o := &options.Compare{}
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two sets of results and flag significant changes in duration (for CI)",
		Long: `compare reads two result files (a run object, a sweep array, or JSON Lines of
them), matches the results by configuration, and tests each pair for a change
in the per-iteration durations with a two-sided Mann-Whitney U test (as
benchstat does). Several results of one configuration in a file are pooled.

A change is significant when p < --alpha AND the median moved by at least
--threshold percent (--cpu-threshold for CPU time). With --judge code (the
default) the CPU time per iteration decides where both sides have it: it
moves with the code, hardly with the machine; a wall change without it,
where the machines' other load differed, is the machine's and fails nothing.
Measure the sides in alternating rounds on one machine, pooled per side
(docs/ci.md): one after the other, a step in the machine's speed between
them reads as the code's. --judge wall judges the wall
time alone. The table shows each side's median ± a 95% confidence interval
of the median, both changes ("~" when not significant), the throttled
fraction and model ratio, and a note saying what moved.

Exit codes: 3 when a significant regression (slower) is found (--fail-on
change: any significant change; never: never), 1 when no configuration is on
both sides, 2 for bad usage or an unreadable file, 0 otherwise. Too few
iterations to ever reach p < --alpha are not a failure: the comparison says
so in the output (and on stderr where the output is not text on the
terminal), and exits 0. When nothing pairs, the error says which --match
would pair them.

Two size results are compared as what they answer: each side's
recommendation, and at each level (cpus, burst) both measured, the share of
counted windows that met the target and the level's verdict; no
significance test is made, and it exits 0.`,
		Example: `  sudo throttlebench run --cpus 0.5 --period 10ms --batch 20 --iterations 10 -o base.json     # before the change
  sudo throttlebench run --cpus 0.5 --period 10ms --batch 20 --iterations 10 -o change.json   # after it
  throttlebench compare base.json change.json                                 # exit 3 on a regression
  throttlebench compare --format markdown -o compare.md base.json change.json
  throttlebench compare --match workload,cost,batch,workers,period,quota,burst workers.json runtime.json
  throttlebench compare --match -node node-a.json node-b.json                  # one node against another (collect --node)`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return badinput.Errorf("", "compare takes two result files, OLD and NEW; got %s", words.N(len(args), "argument"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := o.Resolve()
			if err != nil {
				return err
			}
			return runF(cmd.Context(), comparePlan{Run: r, Old: args[0], New: args[1]})
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&o.Alpha, "alpha", compare.DefaultAlpha, "significance level of the U test: a change needs p below it")
	fl.StringVar(&o.Threshold, "threshold", strconv.FormatFloat(compare.DefaultThresholdPct, 'g', -1, 64)+"%",
		"smallest change of the median wall time that counts, in percent (5 or 5%)")
	fl.StringVar(&o.CPUThreshold, "cpu-threshold", strconv.FormatFloat(compare.DefaultCPUThresholdPct, 'g', -1, 64)+"%",
		"smallest change of the median CPU time per iteration that counts (--judge code)")
	fl.StringVar(&o.Judge, "judge", compare.JudgeCode, "what decides: code (CPU per iteration where both sides have it; a wall change the machine explains fails nothing) or wall")
	fl.StringVar(&o.FailOn, "fail-on", compare.FailOnRegression, "exit 3 on: regression (significantly slower), change (slower or faster), never")
	formatFlag(fl, &o.Format, compare.Formats)
	fl.StringVar(&o.Match, "match", strings.Join(compare.DefaultMatch, ","),
		"keys that make two results the same configuration, from: "+strings.Join(compare.Keys(), ", ")+
			"; or +KEY and -KEY to add to or take from the default (-node: one node's results against another's)")
	fl.StringVarP(&o.Output, "output", "o", "", "write the comparison to this file (atomically) instead of stdout")
	fl.StringVar(&o.Columns, "columns", "", "the table's columns: all, or a list of "+strings.Join(compare.Columns, ", ")+
		" (default: the configuration, the two sides and the change, and what else fits the terminal's width, 80 when not a terminal)")
	return cmd
}

// compare is compare's engine.
func (f *factory) compare(_ context.Context, p comparePlan) error {
	return runCompare(p.Run, p.Old, p.New, f.Stdout, f.Stderr)
}

func runCompare(r compare.Run, oldPath, newPath string, stdout, stderr io.Writer) error {
	old, oerr := readSide("OLD", oldPath)
	if oerr != nil && old.kind == "" {
		return oerr
	}
	new, nerr := readSide("NEW", newPath)
	if new.kind != "" && (old.kind == "size") != (new.kind == "size") {
		return badinput.Errorf("", "compare compares run and sweep results with each other, or two size results: OLD %q is a %s result, NEW %q a %s result", oldPath, old.kind, newPath, new.kind)
	}
	for _, err := range []error{oerr, nerr} {
		if err != nil {
			return err
		}
	}
	if old.kind == "size" {
		return compareSizes(r, old.size, new.size, stdout, stderr)
	}
	res := compare.Compare(old.reps, new.reps, r.Options)
	res.Old.Name, res.New.Name = oldPath, newPath
	if err := writeOutput(r.Output, stdout, func(w io.Writer) error {
		return compare.Write(w, res, r.Format, table.View{Columns: r.Columns, Width: tableWidth(r.Output, stdout)})
	}); err != nil {
		return err
	}

	// Warnings go to stderr too where the output does not show them to a
	// person (markdown, JSON, a file), so that a CI log shows them; that
	// nothing was compared is the error's to say, once.
	if r.Format != "text" || r.Output != "" {
		for _, w := range res.Warnings {
			if !compare.Unpaired(w) {
				fmt.Fprintf(stderr, "throttlebench: warning: %s\n", w.Text)
			}
		}
		for _, row := range res.Rows {
			for _, w := range row.Warnings {
				fmt.Fprintf(stderr, "throttlebench: warning: %s: %s\n", row.Key, w.Text)
			}
		}
	}

	if len(res.Rows) == 0 {
		hint := ""
		if t := res.Suggest.Text(); t != "" {
			hint = "; " + t
		}
		return fmt.Errorf("nothing compared: no configuration in %s is also in %s (--match %s)%s", oldPath, newPath, strings.Join(res.Options.Match, ","), hint)
	}
	if err := res.Failed(r.FailOn); err != nil {
		return &codeError{exitRegression, err}
	}
	return nil
}
