package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// A warning every configuration has goes to stderr once, unlabelled; the
// others with their configuration; the reports keep all of theirs.
func TestLatencyWarningsOnce(t *testing.T) {
	few := "few requests: p99.9 has no 95% interval"
	row := func(rate string, ws ...string) latency.Row {
		return latency.Row{Config: sweep.Config{{Flag: "rate", Value: rate}}, Report: &report.Latency{Warnings: ws}}
	}
	rows := []latency.Row{row("10", few, "late dispatch: 6 ms"), row("20", few), {Config: sweep.Config{{Flag: "rate", Value: "30"}}, Skipped: "no"}}
	assert.Equal(t, []labelled{{Text: few}, {Label: "rate=10", Text: "late dispatch: 6 ms"}}, latencyWarnings(rows))
	assert.Equal(t, []string{few, "late dispatch: 6 ms"}, rows[0].Report.Warnings, "not written to")
	one := []latency.Row{row("10", few)}
	assert.Equal(t, []labelled{{Text: few}}, latencyWarnings(one))
}
