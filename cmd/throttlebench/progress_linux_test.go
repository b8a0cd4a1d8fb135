//go:build linux

package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sweep's and latency's lists show a bar where stderr is a terminal, and
// nowhere else (issue 33: latency's showed none at all).
func TestProgressBarOnlyOnATerminal(t *testing.T) {
	pts, ptm := openPTY(t, 120)
	bar := progressBar(pts, 2)
	require.NotNil(t, bar)
	bar.Update(0, -1, "burst=0")
	_, err := pts.WriteString("\n") // readUntil reads whole lines
	require.NoError(t, err)
	assert.Contains(t, readUntil(t, ptm, "left ~?"), "0/2")
	bar.Done()

	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.Nil(t, progressBar(w, 2), "a pipe")
	assert.Nil(t, progressBar(&bytes.Buffer{}, 2))
}
