package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/runner"
)

// run --sonobuoy-results DIR is how a Sonobuoy plugin's container runs (sweep
// --emit sonobuoy writes it): the result goes to DIR and stdout (the pod's
// log), then the done file (kube.WriteResult). Then the process stays until
// the pod is deleted (and exits 0): a DaemonSet restarts a container that
// exits, which would measure again.

// runSonobuoy runs the configuration, writes the result (or why there is
// none) and the done file, then waits until it is stopped.
func runSonobuoy(ctx context.Context, s options.Settings, h plan.Options, dir string, stdout, stderr io.Writer) error {
	runCtx := ctx
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	local := runner.NewLocal()
	rep, err := local.Run(runCtx, runner.Options{Options: h, Env: s.Env()})
	local.Close() // the tracer, if attached, is not kept while the plugin waits
	if ctx.Err() != nil {
		return err // stopped before a result: nothing to report
	}
	var result bytes.Buffer
	failure := "" // why there is no result
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		failure = fmt.Sprintf("the run exceeded --timeout %v and was stopped; nothing left behind", s.Timeout)
	case err != nil:
		failure = strings.TrimSpace(oneLine(err.Error()))
	default:
		if err := render.Write(&result, rep, "json"); err != nil {
			return err
		}
		if _, err := stdout.Write(result.Bytes()); err != nil {
			return err
		}
	}
	path, err := kube.WriteResult(dir, result.Bytes(), failure)
	if err != nil {
		return err
	}
	if failure != "" {
		// Said now, for the pod's log; the process stays all the same.
		fmt.Fprintf(stderr, "throttlebench: %s (written to %s)\n", failure, path)
	}
	<-ctx.Done()
	return nil
}
