package main

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/show"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/words"
)

type showOptions struct {
	format, output, plot, columns string
}

// showFormats are every format some result is shown in; each kind checks
// its own.
var showFormats = append([]string{"text", "json", "csv", "markdown"}, render.CIFormats...)

func newCmdShow(stdout, stderr io.Writer) *cobra.Command {
	o := &showOptions{}
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
			return o.execute(args[0], cmd.Flags().Changed("format"), stdout, stderr)
		},
	}
	f := cmd.Flags()
	formatFlag(f, &o.format, showFormats)
	f.Lookup("format").Usage = "output format: " + strings.Join(showFormats, ", ") + ", those the result's command writes; without it, what -o's extension names, else text"
	f.StringVarP(&o.output, "output", "o", "", "write to this file (atomically) instead of stdout")
	f.StringVar(&o.plot, "plot", "", "also draw the command's picture into this .svg or .png file (sweep, latency, sample, simulate, size)")
	f.StringVar(&o.columns, "columns", "", columnsHelp)
	return cmd
}

func (o *showOptions) execute(path string, formatGiven bool, stdout, stderr io.Writer) error {
	if err := badinput.Choice("format", o.format, showFormats); err != nil {
		return err
	}
	if err := config.Plot(o.plot); err != nil {
		return err
	}
	if err := config.Output("output", o.output); err != nil {
		return err
	}
	res, err := show.Read(path)
	if err != nil {
		return err
	}
	if !slices.Contains(res.Formats(), o.format) {
		if !formatGiven { // from -o's extension
			return badinput.Errorf("output", "invalid --output %q: a %s result is shown as %s; give --format", o.output, res.Kind(), strings.Join(res.Formats(), ", "))
		}
		return badinput.Errorf("format", "invalid --format %q: a %s result is shown as %s", o.format, res.Kind(), strings.Join(res.Formats(), ", "))
	}
	v := table.View{Width: tableWidth(o.output, stdout)}
	if o.columns != "" {
		names := res.Columns(o.format)
		if names == nil {
			return badinput.Errorf("columns", "invalid --columns %q: a %s result's --format %s has no table of configurations", o.columns, res.Kind(), o.format)
		}
		if v.Columns, err = config.Columns(o.columns, o.format, names); err != nil {
			return err
		}
	}
	if o.plot != "" {
		// A kind without a picture says so before anything is written.
		if err := res.Plot(o.plot); err != nil {
			return err
		}
	}
	if err := writeOutput(o.output, stdout, func(w io.Writer) error { return res.Write(w, o.format, v) }); err != nil {
		return err
	}
	warnOnce(stderr, o.format, o.output, append(res.Warnings(), show.LeftOut(res, o.format)...))
	return nil
}
