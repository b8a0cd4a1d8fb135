package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cleanup"
)

func newCmdCleanup(stdout, _ io.Writer) *cobra.Command {
	o := &cleanup.Flags{}
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
		RunE: func(*cobra.Command, []string) error {
			r, err := cleanup.Run(cgroup.Host{Root: "/"}, *o)
			r.Write(stdout, err != nil)
			return err
		},
	}
	cmd.Flags().StringVar(&o.Parent, "parent", "", "cgroup under which slices were created (default: throttlebench at the top of the cpu hierarchy)")
	cmd.Flags().StringVar(&o.Version, "cgroup-version", "auto", "cgroup version: auto, 1, 2")
	return cmd
}
