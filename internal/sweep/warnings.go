package sweep

import (
	"slices"

	"github.com/throttlebench/throttlebench/internal/report"
)

// SharedWarnings are the warnings every configuration that ran has, word
// for word and of the same kind, in the first one's order; none where fewer than two ran. A
// list says them once, unlabelled, instead of once per configuration
// (issue 33), as latency's table does.
func SharedWarnings[R any](rows []Outcome[R], warnings func(R) []report.Warning) []report.Warning {
	var ran [][]report.Warning
	for _, r := range rows {
		if r.Skipped == "" {
			ran = append(ran, warnings(r.Report))
		}
	}
	if len(ran) < 2 {
		return nil
	}
	var shared []report.Warning
	for _, w := range ran[0] {
		if !slices.Contains(shared, w) && !slices.ContainsFunc(ran[1:], func(ws []report.Warning) bool { return !slices.Contains(ws, w) }) {
			shared = append(shared, w)
		}
	}
	return shared
}

// Warning is a warning and the configuration it is about ("" for one
// every configuration has, or a single configuration's).
type Warning struct {
	Label string
	report.Warning
}

// Labelled are a list's warnings, each labelled with its configuration
// where there are several, but for those every configuration has
// (SharedWarnings), said once unlabelled first: as the commands say them
// on stderr and show says them again.
func Labelled[R any](rows []Outcome[R], warnings func(R) []report.Warning) []Warning {
	shared := SharedWarnings(rows, warnings)
	var out []Warning
	for _, w := range shared {
		out = append(out, Warning{Warning: w})
	}
	for _, r := range rows {
		if r.Skipped != "" {
			continue
		}
		for _, w := range warnings(r.Report) {
			if slices.Contains(shared, w) {
				continue
			}
			l := Warning{Warning: w}
			if len(rows) > 1 {
				l.Label = Describe(r.Config)
			}
			out = append(out, l)
		}
	}
	return out
}
