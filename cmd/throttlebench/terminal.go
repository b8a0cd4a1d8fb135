package main

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
)

// What a terminal gets that a pipe or a file does not: a table as wide as
// it, and a progress bar.

// tableWidth is the width a text table fits: the terminal's, when the
// output goes to stdout and stdout is one; table.DefaultWidth (80) for a
// pipe or a file (path, --output).
func tableWidth(path string, stdout io.Writer) int {
	if f, ok := stdout.(*os.File); ok && path == "" && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return table.DefaultWidth
}

// progressBar is a list's progress bar on stderr where stderr is a
// terminal, nil elsewhere (a log is no place for redraws): sweep's and
// latency's, the same.
func progressBar(stderr io.Writer, configs int) *sweep.Progress {
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return sweep.NewProgress(stderr, configs)
	}
	return nil
}
