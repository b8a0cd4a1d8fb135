package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/compare"
	"github.com/throttlebench/throttlebench/internal/report"
)

type compareOptions struct {
	alpha     float64
	threshold string
	failOn    string
	format    string
	match     string
	output    string
}

// What --fail-on accepts: which verdicts exit 3.
const (
	failOnRegression = "regression"
	failOnChange     = "change"
	failOnNever      = "never"
)

func newCmdCompare(stdout, stderr io.Writer) *cobra.Command {
	o := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two sets of results and flag significant changes in duration (for CI)",
		Long: `compare reads two result files (a run object, a sweep array, or JSON Lines of
them), matches the results by configuration, and tests each pair for a change
in the per-iteration durations with a two-sided Mann-Whitney U test (as
benchstat does). Several results of one configuration in a file are pooled.

A change is significant when p < --alpha AND the median moved by at least
--threshold percent. The table shows each side's median ± a 95% confidence
interval of the median, the change ("~" when not significant), and the
throttled fraction and model ratio, which explain a change.

Exit codes: 3 when a significant regression (slower) is found (--fail-on
change: any significant change; never: never), 1 when no configuration is on
both sides, 2 for bad usage or an unreadable file, 0 otherwise. Too few
iterations to ever reach p < --alpha are not a failure: the comparison says
so, on stderr and in the output, and exits 0.`,
		Example: `  sudo throttlebench run --cpus 0.5 --period 10ms --batch 20 --iterations 10 -o base.json     # before the change
  sudo throttlebench run --cpus 0.5 --period 10ms --batch 20 --iterations 10 -o change.json   # after it
  throttlebench compare base.json change.json                                 # exit 3 on a regression
  throttlebench compare --format markdown -o compare.md base.json change.json
  throttlebench compare --match workload,cost,batch,workers,period,quota,burst workers.json runtime.json
  throttlebench compare --match -node node-a.json node-b.json                  # one node against another (collect --node)`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("compare takes two result files, OLD and NEW; got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			opts, err := o.resolve()
			if err != nil {
				return err
			}
			return runCompare(o, opts, args[0], args[1], stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&o.alpha, "alpha", compare.DefaultAlpha, "significance level of the U test: a change needs p below it")
	f.StringVar(&o.threshold, "threshold", strconv.FormatFloat(compare.DefaultThresholdPct, 'g', -1, 64)+"%",
		"smallest change of the median that counts, in percent (5 or 5%)")
	f.StringVar(&o.failOn, "fail-on", failOnRegression, "exit 3 on: regression (significantly slower), change (slower or faster), never")
	f.StringVar(&o.format, "format", "text", "output format: "+strings.Join(compare.Formats, ", "))
	f.StringVar(&o.match, "match", strings.Join(compare.DefaultMatch, ","),
		"keys that make two results the same configuration, from: "+strings.Join(compare.Keys(), ", ")+
			"; or +KEY and -KEY to add to or take from the default (-node: one node's results against another's)")
	f.StringVarP(&o.output, "output", "o", "", "write the comparison to this file (atomically) instead of stdout")
	return cmd
}

// resolve validates every flag.
func (o *compareOptions) resolve() (compare.Options, error) {
	var opts compare.Options
	if !(o.alpha > 0 && o.alpha < 1) {
		return opts, usagef("invalid --alpha %v: must be between 0 and 1 (exclusive), such as 0.05", o.alpha)
	}
	t, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(o.threshold), "%")), 64)
	if err != nil || !(t >= 0) || math.IsInf(t, 0) {
		return opts, usagef("invalid --threshold %q: want a percentage ≥ 0, such as 5 or 5%%", o.threshold)
	}
	if err := checkChoice("fail-on", o.failOn, []string{failOnRegression, failOnChange, failOnNever}); err != nil {
		return opts, err
	}
	if err := checkChoice("format", o.format, compare.Formats); err != nil {
		return opts, err
	}
	match, err := compare.ParseMatch(o.match)
	if err != nil {
		return opts, usagef("invalid --match %q: want a comma-separated list of %s, or of +KEY and -KEY to change the default", o.match, strings.Join(compare.Keys(), ", "))
	}
	if err := checkOutput("output", o.output); err != nil {
		return opts, err
	}
	return compare.Options{Match: match, Alpha: o.alpha, ThresholdPct: t}, nil
}

func runCompare(o *compareOptions, opts compare.Options, oldPath, newPath string, stdout, stderr io.Writer) error {
	old, err := loadResults("OLD", oldPath)
	if err != nil {
		return err
	}
	new, err := loadResults("NEW", newPath)
	if err != nil {
		return err
	}
	res := compare.Compare(old, new, opts)
	res.Old.Name, res.New.Name = oldPath, newPath
	if err := writeOutput(o.output, stdout, func(w io.Writer) error { return compare.Write(w, res, o.format) }); err != nil {
		return err
	}

	// Warnings go to stderr too, so that a CI log shows them whatever the
	// format and wherever the output went.
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "throttlebench: warning: %s\n", w)
	}
	for _, r := range res.Rows {
		for _, w := range r.Warnings {
			fmt.Fprintf(stderr, "throttlebench: warning: %s: %s\n", r.Key, w)
		}
	}

	if len(res.Rows) == 0 {
		return fmt.Errorf("nothing compared: no configuration in %s is also in %s (--match %s)", oldPath, newPath, strings.Join(res.Options.Match, ","))
	}
	var flagged []compare.Row
	for _, r := range res.Rows {
		if r.Verdict == compare.Regression || (o.failOn == failOnChange && r.Verdict == compare.Improvement) {
			flagged = append(flagged, r)
		}
	}
	if o.failOn == failOnNever || len(flagged) == 0 {
		return nil
	}
	what := "significant regression"
	if o.failOn == failOnChange {
		what = "significant change"
	}
	var list []string
	for i, r := range flagged {
		if i == 5 {
			list = append(list, fmt.Sprintf("and %d more", len(flagged)-i))
			break
		}
		list = append(list, fmt.Sprintf("%s: %+.1f%% (p=%.2g)", r.Key, r.ChangePct, r.P))
	}
	return &codeError{exitRegression, fmt.Errorf("%s in %d of %d configurations: %s",
		what, len(flagged), len(res.Rows), strings.Join(list, "; "))}
}

// loadResults reads one input file; what cannot be read is bad input.
func loadResults(which, path string) ([]report.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, usagef("invalid %s %q: %v; want a result file written by throttlebench run or sweep", which, path, err)
	}
	defer f.Close()
	reps, err := report.Load(f)
	if err != nil {
		return nil, usagef("invalid %s %q: %v", which, path, err)
	}
	return reps, nil
}
