package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/throttlebench/throttlebench/internal/report"
)

var (
	fewIterations   = report.Warning{Kind: report.KindFewIterations, Text: "few iterations"}
	busyMachine     = report.Warning{Kind: report.KindBusyMachine, Text: "busy machine"}
	shortIterations = report.Warning{Kind: report.KindShortIterations, Text: "short iterations"}
)

func TestSharedWarnings(t *testing.T) {
	ws := func(r []report.Warning) []report.Warning { return r }
	rows := []Outcome[[]report.Warning]{
		{Report: []report.Warning{fewIterations, busyMachine}},
		{Skipped: "the kernel refused"},
		{Report: []report.Warning{shortIterations, fewIterations}},
	}
	assert.Equal(t, []report.Warning{fewIterations}, SharedWarnings(rows, ws), "every row that ran has it; a skipped row has none")
	assert.Nil(t, SharedWarnings(rows[:2], ws), "one row that ran shares with none")
	rows[2].Report = []report.Warning{shortIterations}
	assert.Nil(t, SharedWarnings(rows, ws))
	// The same words of another kind (an old result's) are another warning.
	rows[2].Report = []report.Warning{shortIterations, {Kind: report.KindUnknown, Text: "few iterations"}}
	assert.Nil(t, SharedWarnings(rows, ws))
}

// A warning every configuration has is said once, unlabelled, as the
// commands and show say it (issue 33); the others name their
// configuration; a single configuration's are unlabelled.
func TestLabelled(t *testing.T) {
	rows := []Outcome[[]report.Warning]{
		{Config: Config{{Flag: "cpus", Value: "0.5"}}, Report: []report.Warning{fewIterations, shortIterations}},
		{Config: Config{{Flag: "cpus", Value: "1"}}, Report: []report.Warning{fewIterations}},
	}
	same := func(r []report.Warning) []report.Warning { return r }
	assert.Equal(t, []Warning{{Warning: fewIterations}, {Label: "cpus=0.5", Warning: shortIterations}}, Labelled(rows, same))
	assert.Equal(t, []Warning{{Warning: fewIterations}, {Warning: shortIterations}}, Labelled(rows[:1], same))
}
