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
