package main

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/show"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
)

// fromKeeps are the sweep's flags that mean something with --from: how to
// show results read back.
var fromKeeps = map[string]bool{"from": true, "format": true, "output": true, "plot": true, "quiet": true, "columns": true}

// fromResults shows results read back (a sweep's --format json, what
// collect recovered from a cluster) as a sweep shows what it ran, and as
// show shows them: a table in --format, a --plot; a column and a line per
// node when they came from several.
func (o *sweepOptions) fromResults(flags *pflag.FlagSet, stdout io.Writer) error {
	var refused error
	flags.Visit(func(f *pflag.Flag) {
		if refused == nil && !fromKeeps[f.Name] {
			refused = config.Usagef(f.Name, "--%s %q cannot be used with --from: it shows results read from a file and runs nothing", f.Name, f.Value.String())
		}
	})
	if refused != nil {
		return refused
	}
	if err := config.Choice("format", o.run.format, sweep.Formats); err != nil {
		return err
	}
	if err := config.Plot(o.plot); err != nil {
		return err
	}
	if err := config.Output("output", o.run.output); err != nil {
		return err
	}
	reps, err := loadRuns("--from", o.from)
	if err != nil {
		return err
	}
	// The same rows and renderers as show's (show.SweepResult).
	res := show.SweepResult(reps)
	cols, err := config.Columns(o.run.columns, o.run.format, res.Columns(o.run.format))
	if err != nil {
		return err
	}
	v := table.View{Columns: cols, Width: tableWidth(o.run.output, stdout)}
	if err := writeOutput(o.run.output, stdout, func(w io.Writer) error { return res.Write(w, o.run.format, v) }); err != nil {
		return err
	}
	if o.plot == "" {
		return nil
	}
	return res.Plot(o.plot)
}
