package badinput

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorNamesTheFlag(t *testing.T) {
	err := fmt.Errorf("resolve: %w", Errorf("cpus", "invalid --cpus %q: want a number", "x"))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "cpus", e.Param)
	assert.Equal(t, `invalid --cpus "x": want a number`, e.Msg)
	assert.True(t, Is(err))
	assert.False(t, IsCombination(err))
	assert.True(t, IsCombination(Combinationf("burst", "burst above the quota")))
	assert.False(t, Is(os.ErrNotExist))
}

func TestChoice(t *testing.T) {
	require.NoError(t, Choice("format", "csv", []string{"json", "csv"}))
	assert.EqualError(t, Choice("format", "yaml", []string{"json", "csv"}), `invalid --format "yaml": want one of json, csv`)
}

func TestPathCause(t *testing.T) {
	_, err := os.Open("/nonexistent/x")
	assert.EqualError(t, PathCause(err), "no such file or directory", "the cause, without the path")
	other := fmt.Errorf("not a path error")
	assert.Equal(t, other, PathCause(other))
}
