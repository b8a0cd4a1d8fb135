package kube

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/badinput"
)

// run --sonobuoy-results DIR is how a Sonobuoy plugin's container runs
// (sweep --emit sonobuoy writes it): the image has no shell, so the binary
// itself writes what Sonobuoy's worker waits for. The result goes to
// DIR/throttlebench.json, then the done file DIR/done names it; a run
// that failed writes DIR/throttlebench-error.json instead, so that the
// node reports why.

// SonobuoyErrorFile is the file a failed run writes instead of its result.
const SonobuoyErrorFile = "throttlebench-error.json"

// CheckResultsDir refuses, before anything runs, what cannot go with
// --sonobuoy-results dir: an --output (given, or ""), a --format other
// than json, a dir that is no directory or where the result cannot be
// written.
func CheckResultsDir(dir, output, format string) error {
	if output != "" {
		return badinput.Errorf("output", "--output %q conflicts with --sonobuoy-results %q: the result goes to %s in it (and to stdout)", output, dir, SonobuoyResultFile)
	}
	if format != "json" {
		return badinput.Errorf("format", "--format %q cannot be used with --sonobuoy-results: the plugin's raw result is the JSON result", format)
	}
	// Named first: a link someone else planted says so, wherever it leads.
	if err := atomicfile.CheckLinks(dir); err != nil {
		return badinput.Errorf("sonobuoy-results", "invalid --sonobuoy-results %q: %v", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return badinput.Errorf("sonobuoy-results", "invalid --sonobuoy-results %q: %v; want the plugin's results directory (Sonobuoy mounts it, %s by default)", dir, badinput.PathCause(err), SonobuoyResults)
	}
	if !fi.IsDir() {
		return badinput.Errorf("sonobuoy-results", "invalid --sonobuoy-results %q: not a directory; want the plugin's results directory (%s by default)", dir, SonobuoyResults)
	}
	// The directory is reached as an output file is (no link someone else
	// planted is followed, here or at the write); the flag's value is
	// the directory.
	if _, err := atomicfile.Target(filepath.Join(dir, SonobuoyResultFile)); err != nil {
		return badinput.Errorf("sonobuoy-results", "invalid --sonobuoy-results %q: %v", dir, err)
	}
	return nil
}

// WriteResult writes a run's JSON result into dir, or, when failure says
// why there is none, an error result Sonobuoy reports for the node; then
// the done file holding the path of what it wrote, as Sonobuoy's worker
// reads it: last, and whole, so that the worker never sends half a file.
// It returns that path.
func WriteResult(dir string, result []byte, failure string) (string, error) {
	path := filepath.Join(dir, SonobuoyResultFile)
	write := func(w io.Writer) error { _, err := w.Write(result); return err }
	if failure != "" {
		path = filepath.Join(dir, SonobuoyErrorFile)
		write = func(w io.Writer) error {
			return json.NewEncoder(w).Encode(map[string]string{"error": "throttlebench: " + failure})
		}
	}
	if err := atomicfile.Write(path, write); err != nil {
		return "", err
	}
	return path, atomicfile.Write(filepath.Join(dir, "done"), func(w io.Writer) error {
		_, err := io.WriteString(w, path)
		return err
	})
}
