package main

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/table"
)

// writeOutput writes what render produces to stdout, or atomically to path.
func writeOutput(path string, stdout io.Writer, render func(io.Writer) error) error {
	if path == "" {
		return render(stdout)
	}
	return atomicfile.Write(path, render)
}

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
