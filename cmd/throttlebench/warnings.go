package main

import (
	"fmt"
	"io"

	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// A result's warnings on stderr: where the output does not show them to a
// person, each once, labelled with its configuration in a list.

// warnOnce writes warnings to stderr, one "warning: " line each and each
// line once, wherever the output does not show them to a person already:
// every format but text on stdout (a benchstat user's gobench, JSON to a
// pipe, a file). Where a list's configurations warn, the line says which.
func warnOnce(stderr io.Writer, format, output string, warnings []labelled) {
	if format == "text" && output == "" {
		return
	}
	seen := map[string]bool{}
	for _, w := range warnings {
		line := "warning: " + w.Text
		if w.Label != "" {
			line = "warning: " + w.Label + ": " + w.Text
		}
		if !seen[line] {
			seen[line] = true
			_, _ = io.WriteString(stderr, line+"\n")
		}
	}
}

// closedLoopWarnings are a run's or sweep's warnings for stderr: in a
// format compare cannot read (text, CSV, markdown) without the note that
// compare could never find a change in the result, which matters only
// where a JSON result is kept to be compared.
func closedLoopWarnings(format string, ws []report.Warning) []report.Warning {
	if format == "json" {
		return ws
	}
	return render.ForPeople(ws)
}

// labelled is a warning and the configuration it is about ("" for a single
// one).
type labelled = sweep.Warning

// unlabelled are one result's warnings.
func unlabelled(ws []report.Warning) []labelled {
	out := make([]labelled, len(ws))
	for i, w := range ws {
		out[i] = labelled{Warning: w}
	}
	return out
}

// outcomeWarnings are a list's warnings as stderr says them
// (sweep.Labelled).
func outcomeWarnings[R any](rows []sweep.Outcome[R], warnings func(R) []report.Warning) []labelled {
	return sweep.Labelled(rows, warnings)
}

// latencyWarnings are a list's warnings for stderr: one that every
// configuration has, once and unlabelled; the others labelled with
// their configuration.
func latencyWarnings(rows []latency.Row) []labelled {
	rest, shared := latency.SharedWarnings(rows)
	var out []labelled
	for _, w := range append(unlabelled(shared), outcomeWarnings(rest, func(r *report.Latency) []report.Warning { return r.Warnings })...) {
		// A failed target's warning is the error's text (options.TargetFailed),
		// said last: once, not twice.
		if w.Kind != report.KindFailedRun {
			out = append(out, w)
		}
	}
	return out
}

// skipped says on stderr which configuration a list skipped, and why.
func skipped(stderr io.Writer) func(sweep.Config, string) {
	return func(c sweep.Config, why string) {
		fmt.Fprintf(stderr, "throttlebench: skipped %s: %s\n", sweep.Describe(c), why)
	}
}
