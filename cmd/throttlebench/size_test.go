package main

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/sizing"
)

// size's exit code follows what the search came to: a script can tell an
// answer from "no limit meets it" from "could not tell" without the JSON.
func TestSizeOutcomeExitCodes(t *testing.T) {
	assert.NoError(t, sizeOutcome(sizing.Result{Outcome: sizing.OutcomeRecommendation}))
	for outcome, code := range map[string]int{sizing.OutcomeNoLimit: exitNoLimit, sizing.OutcomeUndecided: exitUndecided} {
		err := sizeOutcome(sizing.Result{Outcome: outcome, Why: "because"})
		var ce *codeError
		require.True(t, errors.As(err, &ce), outcome)
		assert.Equal(t, code, ce.code, outcome)
		assert.Contains(t, err.Error(), "because")
	}
	assert.Equal(t, 4, exitNoLimit)
	assert.Equal(t, 5, exitUndecided)
}
