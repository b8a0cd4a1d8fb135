package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSharedWarnings(t *testing.T) {
	ws := func(r []string) []string { return r }
	rows := []Outcome[[]string]{
		{Report: []string{"few iterations", "busy machine"}},
		{Skipped: "the kernel refused"},
		{Report: []string{"short iterations", "few iterations"}},
	}
	assert.Equal(t, []string{"few iterations"}, SharedWarnings(rows, ws), "every row that ran has it; a skipped row has none")
	assert.Nil(t, SharedWarnings(rows[:2], ws), "one row that ran shares with none")
	rows[2].Report = []string{"short iterations"}
	assert.Nil(t, SharedWarnings(rows, ws))
}

// A warning every configuration has is said once, unlabelled, as the
// commands and show say it (issue 33); the others name their
// configuration; a single configuration's are unlabelled.
func TestLabelled(t *testing.T) {
	rows := []Outcome[[]string]{
		{Config: Config{{Flag: "cpus", Value: "0.5"}}, Report: []string{"few iterations", "short iterations"}},
		{Config: Config{{Flag: "cpus", Value: "1"}}, Report: []string{"few iterations"}},
	}
	same := func(r []string) []string { return r }
	assert.Equal(t, []Warning{{Text: "few iterations"}, {Label: "cpus=0.5", Text: "short iterations"}}, Labelled(rows, same))
	assert.Equal(t, []Warning{{Text: "few iterations"}, {Text: "short iterations"}}, Labelled(rows[:1], same))
}
