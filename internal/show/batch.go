package show

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
)

// RunFormats are what run writes, and show shows a run result in: its own
// (render.Formats) and, as a sweep's one-row table, CSV and markdown.
var RunFormats = slices.Concat(render.Formats, []string{"csv", "markdown"})

// WriteRun writes one run's result in one of RunFormats: CSV and markdown
// as the row a sweep of that one configuration shows.
func WriteRun(w io.Writer, rep *report.Report, format string, v table.View) error {
	if format == "csv" || format == "markdown" {
		return sweep.WriteRows(w, batchRows([]report.Report{*rep}), format, v)
	}
	return render.Write(w, rep, format)
}

// durations_ms is what every run result holds (report.Load insists).
var runKind = Kind{Name: "run",
	Claims: func(keys map[string]json.RawMessage, list bool) bool { return !list && has(keys, "durations_ms") },
	Load: func(data []byte, _ bool) (Result, error) {
		reps, err := loadReports(data)
		if err != nil {
			return nil, err
		}
		return runResult{&reps[0]}, nil
	}}

// A sweep is an array of run results (or several, one after another, as a
// CI job appends them, or as collect writes them).
var sweepKind = Kind{Name: "sweep",
	Claims: func(keys map[string]json.RawMessage, list bool) bool { return list && has(keys, "durations_ms") },
	Load: func(data []byte, _ bool) (Result, error) {
		reps, err := loadReports(data)
		if err != nil {
			return nil, err
		}
		return SweepResult(reps), nil
	}}

func loadReports(data []byte) ([]report.Report, error) {
	reps, err := report.Load(strings.NewReader(string(data)))
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), report.ErrInput.Error()+": "))
	}
	return reps, nil
}

type runResult struct{ rep *report.Report }

func (runResult) Kind() string      { return "run" }
func (runResult) Formats() []string { return RunFormats }
func (r runResult) Columns(format string) []string {
	if format != "csv" && format != "markdown" {
		return nil
	}
	return sweep.Columns(batchRows([]report.Report{*r.rep})[0].Config.Flags())
}
func (r runResult) Write(w io.Writer, format string, v table.View) error {
	return WriteRun(w, r.rep, format, v)
}
func (runResult) Plot(path string) error {
	return badinput.Errorf("plot", "invalid --plot %q: a run result has no picture to draw again: run's --plot is --trace's timeline, drawn from the raw throttle events, which --trace-out writes and the result does not hold", path)
}
func (r runResult) Warnings() []Warning { return unlabelled(r.rep.Warnings) }

// sweepResult is a sweep's results laid out as sweep --from lays them
// (sweep.FromReports).
type sweepResult struct{ rows []sweep.Row }

// SweepResult is reps shown as a sweep (sweep --from shows them so too).
func SweepResult(reps []report.Report) Result { return sweepResult{batchRows(reps)} }

func (sweepResult) Kind() string      { return "sweep" }
func (sweepResult) Formats() []string { return sweep.Formats }
func (s sweepResult) Columns(format string) []string {
	if !slices.Contains(config.TableFormats, format) {
		return nil
	}
	return sweep.Columns(s.rows[0].Config.Flags())
}
func (s sweepResult) Write(w io.Writer, format string, v table.View) error {
	return sweep.WriteRows(w, s.rows, format, v)
}
func (s sweepResult) Plot(path string) error {
	chart, err := plot.Build(s.rows, plot.Title(s.rows))
	if err != nil {
		return err
	}
	return plot.Save(path, chart)
}
func (s sweepResult) Warnings() []Warning {
	return sweep.Labelled(s.rows, func(r *report.Report) []report.Warning { return r.Warnings })
}

func unlabelled(ws []report.Warning) []Warning {
	out := make([]Warning, len(ws))
	for i, w := range ws {
		out[i] = Warning{Warning: w}
	}
	return out
}
