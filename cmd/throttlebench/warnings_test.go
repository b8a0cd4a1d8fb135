package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// A warning every configuration has goes to stderr once, unlabelled; the
// others with their configuration; the reports keep all of theirs. A
// failed target's warning is its error's to say, whatever its words.
func TestLatencyWarningsOnce(t *testing.T) {
	few := report.Warning{Kind: report.KindNoP999Interval, Text: "no p99.9 interval: p99.9 has no 95% interval"}
	late := report.Warning{Kind: report.KindLateDispatch, Text: "late dispatch: 6 ms"}
	failed := report.Warning{Kind: report.KindFailedRun, Text: "any words"}
	row := func(rate string, ws ...report.Warning) latency.Row {
		return latency.Row{Config: sweep.Config{{Flag: "rate", Value: rate}}, Report: &report.Latency{Warnings: ws}}
	}
	rows := []latency.Row{row("10", few, late, failed), row("20", few), {Config: sweep.Config{{Flag: "rate", Value: "30"}}, Skipped: "no"}}
	assert.Equal(t, []labelled{{Warning: few}, {Label: "rate=10", Warning: late}}, latencyWarnings(rows))
	assert.Equal(t, []report.Warning{few, late, failed}, rows[0].Report.Warnings, "not written to")
	one := []latency.Row{row("10", few)}
	assert.Equal(t, []labelled{{Warning: few}}, latencyWarnings(one))
}
