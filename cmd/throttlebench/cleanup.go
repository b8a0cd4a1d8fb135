package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cleanup"
	"github.com/throttlebench/throttlebench/internal/options"
)

func newCmdCleanup(f *factory, runF func(context.Context, cleanup.Where) error) *cobra.Command {
	o := &options.Cleanup{}
	cmd := &cobra.Command{
		Use:   "cleanup",
		Short: "Remove slices left by runs whose process no longer lives (e.g. killed with SIGKILL)",
		Long: `cleanup removes the empty slices (tb-<pid>-<start>-<random>) whose owning
throttlebench process no longer lives, and their twins in the cpuacct and
cpuset hierarchies where cgroup v1 keeps them apart. It never kills
anything: a slice that still holds processes belongs to a run it cannot see
(another PID namespace) or holds processes that are not ours, and is left
alone and listed. Nothing else under the parent is touched.

Under systemd (cgroup v2, no --parent) it also looks in throttlebench.slice
for the scopes (throttlebench-<pid>-<start>-<random>.scope) of runs that no
longer live: their empty slices and empty leaf self are removed, and the
scope is stopped over the system bus once nothing is left in it. A scope in
which a process still lives is left running and listed; systemd stops it
by itself once that process is gone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := o.Resolve(cgroup.Host{Root: "/"})
			if err != nil {
				return err
			}
			return runF(cmd.Context(), w)
		},
	}
	cmd.Flags().StringVar(&o.Parent, "parent", "", "cgroup under which slices were created (default: throttlebench at the top of the cpu hierarchy)")
	cmd.Flags().StringVar(&o.Version, "cgroup-version", "auto", "cgroup version: auto, 1, 2")
	return cmd
}

// cleanup is cleanup's engine: what it did, a line each.
func (f *factory) cleanup(_ context.Context, w cleanup.Where) error {
	r, err := cleanup.Run(cgroup.Host{Root: "/"}, w)
	r.Write(f.Stdout, err != nil)
	return err
}
