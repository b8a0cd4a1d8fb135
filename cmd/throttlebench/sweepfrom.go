package main

import (
	"io"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/show"
	"github.com/throttlebench/throttlebench/internal/table"
)

// sweepFrom shows results read back (a sweep's --format json, what
// collect recovered from a cluster) as a sweep shows what it ran, and as
// show shows them: a table in --format, a --plot; a column and a line per
// node when they came from several.
func sweepFrom(p options.SweepPlan, stdout io.Writer) error {
	reps, err := loadRuns("--from", p.From)
	if err != nil {
		return err
	}
	// The same rows and renderers as show's (show.SweepResult).
	res := show.SweepResult(reps)
	cols, err := config.Columns(p.Columns, p.Format, res.Columns(p.Format))
	if err != nil {
		return err
	}
	v := table.View{Columns: cols, Width: tableWidth(p.Output, stdout)}
	if err := writeOutput(p.Output, stdout, func(w io.Writer) error { return res.Write(w, p.Format, v) }); err != nil {
		return err
	}
	if p.Plot == "" {
		return nil
	}
	return res.Plot(p.Plot)
}
