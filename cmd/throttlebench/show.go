package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/show"
	"github.com/throttlebench/throttlebench/internal/words"
)

// showPlan is show resolved: its flags and the file.
type showPlan struct {
	Show options.Show
	Path string
}

func newCmdShow(f *factory, runF func(context.Context, showPlan) error) *cobra.Command {
	o := &options.Show{}
	cmd := &cobra.Command{
		Use:   "show FILE",
		Short: "Show a saved result (run, sweep, latency, sample, simulate, size) again as the table, or plot, that made it",
		Long: `show reads a result a command wrote (-o r.json, --format json) and renders it
as that command did: a run's summary, a sweep's or a latency list's table, a
sample's summary, simulate's cells, size's arms and recommendation, in
--format, and with --plot the command's picture. The kind is read from the file itself: ` + show.KindNames() + `.`,
		Example: `  throttlebench show r.json
  throttlebench show sweep.json --format markdown --plot sweep.svg
  throttlebench show latency.json --columns p50_ms,p99_ms
  throttlebench show usage.json --plot usage.png
  throttlebench show size.json --format markdown --plot size.svg`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				// As compare's: what it takes, not cobra's "accepts 1 arg(s)".
				return badinput.Errorf("", "show takes one result file, FILE (what run, sweep, latency, sample, simulate or size wrote with -o); got %s", words.N(len(args), "argument"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.FormatGiven = cmd.Flags().Changed("format")
			if err := o.Check(); err != nil {
				return err
			}
			return runF(cmd.Context(), showPlan{Show: *o, Path: args[0]})
		},
	}
	fl := cmd.Flags()
	formatFlag(fl, &o.Format, options.ShowFormats)
	fl.Lookup("format").Usage = "output format: " + strings.Join(options.ShowFormats, ", ") + ", those the result's command writes; without it, what -o's extension names, else text"
	fl.StringVarP(&o.Output, "output", "o", "", "write to this file (atomically) instead of stdout")
	fl.StringVar(&o.Plot, "plot", "", "also draw the command's picture into this .svg or .png file (sweep, latency, sample, simulate, size)")
	fl.StringVar(&o.Columns, "columns", "", columnsHelp)
	return cmd
}

// show is show's engine: the result in the file written as asked.
func (f *factory) show(_ context.Context, p showPlan) error {
	o, stdout, stderr := p.Show, f.Stdout, f.Stderr
	res, err := show.Read(p.Path)
	if err != nil {
		return err
	}
	v, err := o.For(res, tableWidth(o.Output, stdout))
	if err != nil {
		return err
	}
	if o.Plot != "" {
		// A kind without a picture says so before anything is written.
		if err := res.Plot(o.Plot); err != nil {
			return err
		}
	}
	if err := writeOutput(o.Output, stdout, func(w io.Writer) error { return res.Write(w, o.Format, v) }); err != nil {
		return err
	}
	warnOnce(stderr, o.Format, o.Output, append(res.Warnings(), show.LeftOut(res, o.Format)...))
	return nil
}
