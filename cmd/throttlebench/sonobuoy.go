package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/runner"
)

// run --sonobuoy-results DIR is how a Sonobuoy plugin's container runs (sweep
// --emit sonobuoy writes it): the image has no shell, so the binary itself
// writes what Sonobuoy's worker waits for. The result goes to
// DIR/throttlebench.json (and stdout, for the pod's log), then the done file
// DIR/done names it; a run that failed writes DIR/throttlebench-error.json
// instead, so that the node reports why. Then the process stays until the
// pod is deleted (and exits 0): a DaemonSet restarts a container that
// exits, which would measure again.

const sonobuoyErrorFile = "throttlebench-error.json"

// checkSonobuoy refuses, before anything runs, what cannot go with
// --sonobuoy-results.
func checkSonobuoy(dir string, changed func(string) bool, o *runFlags) error {
	if changed("output") {
		return usagef("--output %q conflicts with --sonobuoy-results %q: the result goes to %s in it (and to stdout)", o.output, dir, kube.SonobuoyResultFile)
	}
	if o.format != "json" {
		return usagef("--format %q cannot be used with --sonobuoy-results: the plugin's raw result is the JSON result", o.format)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return usagef("invalid --sonobuoy-results %q: %v; want the plugin's results directory (Sonobuoy mounts it, %s by default)", dir, pathErr(err), kube.SonobuoyResults)
	}
	if !fi.IsDir() {
		return usagef("invalid --sonobuoy-results %q: not a directory; want the plugin's results directory (%s by default)", dir, kube.SonobuoyResults)
	}
	return checkOutput("sonobuoy-results", filepath.Join(dir, kube.SonobuoyResultFile))
}

// runSonobuoy runs the configuration, writes the result (or why there is
// none) and the done file, then waits until it is stopped.
func runSonobuoy(ctx context.Context, s settings, h runner.Options, dir string, stdout, stderr io.Writer) error {
	runCtx := ctx
	if s.timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	rep, err := runner.NewLocal().Run(runCtx, h)
	if ctx.Err() != nil {
		return err // stopped before a result: nothing to report
	}
	name := kube.SonobuoyResultFile
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the run exceeded --timeout %v and was stopped; nothing left behind", s.timeout)
		}
		name = sonobuoyErrorFile
		msg := oneLine(err.Error())
		if werr := atomicfile.Write(filepath.Join(dir, name), func(w io.Writer) error {
			return json.NewEncoder(w).Encode(map[string]string{"error": "throttlebench: " + msg})
		}); werr != nil {
			return werr
		}
	} else {
		if werr := atomicfile.Write(filepath.Join(dir, name), func(w io.Writer) error { return render.Write(w, rep, "json") }); werr != nil {
			return werr
		}
		if werr := render.Write(stdout, rep, "json"); werr != nil {
			return werr
		}
	}
	// The done file holds the path of the result, as Sonobuoy's worker reads
	// it: written last, whole, so that the worker never sends half a file.
	path := filepath.Join(dir, name)
	if werr := atomicfile.Write(filepath.Join(dir, "done"), func(w io.Writer) error {
		_, e := io.WriteString(w, path)
		return e
	}); werr != nil {
		return werr
	}
	if err != nil {
		// Said now, for the pod's log; the process stays all the same.
		fmt.Fprintf(stderr, "throttlebench: %s (written to %s)\n", strings.TrimSpace(oneLine(err.Error())), path)
	}
	<-ctx.Done()
	return nil
}
