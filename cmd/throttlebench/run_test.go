package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// --output is written whole or not at all, and no temporary file stays.
func TestWriteOutputIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))

	err := writeOutput(path, nil, func(w io.Writer) error {
		io.WriteString(w, "half a resu")
		return errors.New("render failed")
	})
	require.Error(t, err)
	data, _ := os.ReadFile(path)
	assert.Equal(t, "old", string(data), "a failed write must not touch the file")

	require.NoError(t, writeOutput(path, nil, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}))
	data, _ = os.ReadFile(path)
	assert.Equal(t, "new", string(data))
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file left: %v", entries)
}
