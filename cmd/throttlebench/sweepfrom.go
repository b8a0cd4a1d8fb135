package main

import (
	"io"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/modes"
	"github.com/throttlebench/throttlebench/internal/runopts"
	"github.com/throttlebench/throttlebench/internal/show"
	"github.com/throttlebench/throttlebench/internal/table"
)

// sweepFrom shows results read back (a sweep's --format json, what
// collect recovered from a cluster) as a sweep shows what it ran, and as
// show shows them: a table in --format, a --plot; a column and a line per
// node when they came from several.
func sweepFrom(o *runopts.Sweep, g modes.Given, stdout io.Writer) error {
	if err := o.CheckFrom(g); err != nil {
		return err
	}
	reps, err := loadRuns("--from", o.From)
	if err != nil {
		return err
	}
	// The same rows and renderers as show's (show.SweepResult).
	res := show.SweepResult(reps)
	cols, err := config.Columns(o.Run.Columns, o.Run.Format, res.Columns(o.Run.Format))
	if err != nil {
		return err
	}
	v := table.View{Columns: cols, Width: tableWidth(o.Run.Output, stdout)}
	if err := writeOutput(o.Run.Output, stdout, func(w io.Writer) error { return res.Write(w, o.Run.Format, v) }); err != nil {
		return err
	}
	if o.Plot == "" {
		return nil
	}
	return res.Plot(o.Plot)
}
