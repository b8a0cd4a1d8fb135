package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompareWritesOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cmp.md")
	code, stdout, stderr := runCLI("compare", "--format", "markdown", "-o", path, fixture("base.jsonl"), fixture("regression.jsonl"))
	assert.Equal(t, exitRegression, code, "the verdict does not depend on where the table goes")
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "significant regression")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), "| `period=10ms quota=5ms` |")
}
