package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/collect"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/words"
)

// collectPlan is collect resolved: its flags, and the inputs (- is In).
type collectPlan struct {
	Collect options.Collect
	Inputs  []string
	In      io.Reader
}

func newCmdCollect(f *factory, runF func(context.Context, collectPlan) error) *cobra.Command {
	o := &options.Collect{}
	cmd := &cobra.Command{
		Use:   "collect [FILE|DIR|-]...",
		Short: "Recover the results of a sweep run on a cluster from its pods' logs or a Sonobuoy archive, into one results file",
		Long: `collect reads what kubectl logs prints for the pods of sweep --emit kubernetes
(one pod or many, with or without --prefix and --timestamps; stderr lines
mixed in are left out), or the tarball sonobuoy retrieve brings back from
sweep --emit sonobuoy (plugins/<plugin>/results/<node>/), recovers every
result with the node it ran on, and writes them as one JSON array: the file
sweep --from, --plot and compare read.

An argument is a log file, a results archive (.tar.gz), a directory (an
extracted Sonobuoy archive, or a directory of log files), or - for stdin,
the default. A pod whose log holds no result (it failed, its log was cut
short, or is empty) is listed on stderr with the reason, and the exit
status is 1: the file still holds what was recovered. Exit 0: every pod
gave its result; 1: some did not, or none did (nothing written then); 2:
bad usage or an unreadable input.`,
		Example: `  kubectl logs -l throttlebench/sweep=20250101-120000 --prefix --tail=-1 --ignore-errors | throttlebench collect - -o results.json
  throttlebench collect 202501011200_sonobuoy_*.tar.gz -o results.json
  throttlebench collect --node node-a logs.txt -o node-a.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"-"}
			}
			return runF(cmd.Context(), collectPlan{Collect: *o, Inputs: args, In: cmd.InOrStdin()})
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.Output, "output", "o", "", "write the results to this file (atomically) instead of stdout")
	fl.StringSliceVar(&o.Nodes, "node", nil, "keep only the results of these nodes (comma-separated or repeated), to compare one node with another")
	return cmd
}

// collect is collect's engine.
func (f *factory) collect(_ context.Context, p collectPlan) error {
	return runCollect(p.Collect, p.Inputs, p.In, f.Stdout, f.Stderr)
}

func runCollect(o options.Collect, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := o.Check(args); err != nil {
		return err
	}
	c, err := collect.Read(args, stdin)
	if err != nil {
		return err
	}
	for _, m := range c.MissingOn(o.Nodes) {
		fmt.Fprintf(stderr, "throttlebench: collect: no result from %s: %s\n", m.Source, m.Reason)
	}
	if unnamed := c.Unnamed(); len(unnamed) > 0 {
		fmt.Fprintf(stderr, "throttlebench: collect: warning: %s without a node (%s unset in the pod: not a pod of sweep --emit?): %s\n",
			words.N(len(unnamed), "result"), report.NodeEnv, strings.Join(unnamed, ", "))
	}
	reps := c.Reports()
	kept := collect.OnNodes(reps, o.Nodes)
	fmt.Fprintf(stderr, "throttlebench: collect: %s\n", c.Summary(reps, kept, o.Nodes))
	if len(kept) == 0 {
		what := "no result recovered"
		if len(reps) > 0 {
			what = fmt.Sprintf("none of the %d results recovered is from --node %s", len(reps), strings.Join(o.Nodes, ","))
		}
		return fmt.Errorf("%s from %s; nothing written", what, strings.Join(args, " "))
	}
	if err := writeOutput(o.Output, stdout, func(w io.Writer) error { return report.WriteJSON(w, kept) }); err != nil {
		return err
	}
	if n := c.MissingSources(o.Nodes); n > 0 {
		return fmt.Errorf("%d of %d pods or files left no result or a broken one (listed above); the %d results recovered are written", n, c.Sources, len(kept))
	}
	return nil
}
