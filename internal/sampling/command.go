package sampling

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/usage"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Sample samples the cgroup given (where the slice's usage is counted)
// until ctx ends; start is the command's go-ahead.
type Sample func(ctx context.Context, cg cgroup.Cgroup, start func() error) error

// Command is sample -- CMD: the command started in a slice of its own
// with no limit (sample measures, it does not limit), the way --serve
// starts a server (runner.Local.Watch), and that slice sampled until the
// command exits, --duration passes or Ctrl-C; then the command is stopped
// and the slice removed. A command that fails fails the run (exit 1),
// after the sample is written. warnings are the run's, for stderr.
func Command(ctx context.Context, r usage.Options, stderr io.Writer, sample Sample) (warnings []report.Warning, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	h := cgroup.Host{Root: "/"}
	o := runner.Options{Options: plan.Options{Mode: runner.ModeCreate, Limits: cgroup.Limits{Period: config.DefaultPeriod, Quota: cgroup.Unlimited}},
		Env: runner.Env{Host: h, Exe: exe, Stderr: stderr}}
	w, err := runner.NewLocal().Watch(ctx, o, r.Command, func(ctx context.Context, slice cgroup.Cgroup, start func() error) error {
		// The slice's usage counter: on v1 with cpuacct apart, its twin.
		cg, err := h.UsageCgroup(slice.Path)
		if err != nil {
			return err
		}
		return sample(ctx, cg, start)
	})
	if w == nil {
		return nil, err
	}
	if w.Failed() {
		failed := errors.New(words.WithStderr(fmt.Sprintf("the command %s ended with %s", runner.QuoteArgv(r.Command), w.Exit), w.Stderr))
		return w.Warnings, errors.Join(failed, err)
	}
	return w.Warnings, err
}
