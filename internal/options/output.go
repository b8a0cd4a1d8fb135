package options

import (
	"strings"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/badinput"
)

// Output refuses, before any work is done rather than after a long run, an
// --output (or --plot, --trace-out) that is no place for a result: a
// device, a directory, a missing or unwritable directory, a kernel
// filesystem, a symbolic link someone else planted (atomicfile.Target:
// the write checks it again). "" (stdout, or none) is fine.
func Output(flag, path string) error {
	if path == "" {
		return nil
	}
	return atomicfile.CheckFlag(flag, path)
}

// Plot refuses a --plot that names no picture format the charts are drawn
// in, or no place to write one, before the work that would fill it.
func Plot(path string) error {
	if path == "" {
		return nil
	}
	if ext := strings.ToLower(path[max(0, strings.LastIndex(path, ".")):]); ext != ".svg" && ext != ".png" {
		return badinput.Errorf("plot", "invalid --plot %q: want a file name ending in .svg or .png", path)
	}
	return Output("plot", path)
}
