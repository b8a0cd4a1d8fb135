package main

import (
	"io"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
)

// writeOutput writes what render produces to stdout, or atomically to path.
func writeOutput(path string, stdout io.Writer, render func(io.Writer) error) error {
	if path == "" {
		return render(stdout)
	}
	return atomicfile.Write(path, render)
}
