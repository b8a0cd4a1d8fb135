package main

import (
	"context"
	"io"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/sampling"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// sampleCommand is sample -- CMD (sampling.Command): the slice the command
// runs in sampled and written as sample writes any cgroup's, the run's
// warnings said on stderr.
func sampleCommand(ctx context.Context, r usage.Options, stdout, stderr io.Writer) error {
	warnings, err := sampling.Command(ctx, r, stderr, func(ctx context.Context, cg cgroup.Cgroup, start func() error) error {
		return sampleOn(ctx, r, cg, start, stdout, stderr)
	})
	warnOnce(stderr, "", "", unlabelled(warnings))
	return err
}
