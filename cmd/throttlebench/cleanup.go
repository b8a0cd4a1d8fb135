package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/config"
)

type cleanupOptions struct {
	parent  string
	version string
}

func newCmdCleanup(stdout, _ io.Writer) *cobra.Command {
	o := &cleanupOptions{}
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
			version, err := config.CgroupVersion(o.version)
			if err != nil {
				return err
			}
			host := cgroup.Host{Root: "/"}
			hier, err := host.CPUHierarchy(version)
			if err != nil {
				return err
			}
			parent := hier.DefaultParent()
			if o.parent != "" {
				if parent, err = hier.ParentDir(o.parent); err != nil {
					return config.Usagef("parent", "invalid --parent %q: %v", o.parent, err)
				}
			}
			// Where v1 keeps cpuacct or cpusets apart, a run left twins of
			// its slice there, under the same parent path.
			removed, skipped, err := host.Tidy(hier, parent, o.parent == "")
			for _, d := range removed {
				fmt.Fprintf(stdout, "removed %s\n", d)
			}
			for _, s := range skipped {
				fmt.Fprintf(stdout, "left %s: %s\n", s.Dir, s.Reason)
			}
			// Under systemd, a run's slices were in its own scope in
			// throttlebench.slice: the scopes of runs that no longer live
			// are tidied too, and stopped once empty.
			var stopped []string
			where := parent
			if o.parent == "" && hier.Version == 2 && hier.MountRoot == "/" {
				where += " nor in " + cgroup.ScopeSliceDir(hier)
				r, st, s, serr := host.CleanScopes(hier)
				stopped = st
				err = errors.Join(err, serr)
				for _, d := range r {
					fmt.Fprintf(stdout, "removed %s\n", d)
				}
				for _, u := range st {
					fmt.Fprintf(stdout, "stopped %s\n", u)
				}
				for _, s := range s {
					fmt.Fprintf(stdout, "left %s: %s\n", s.Dir, s.Reason)
				}
				removed, skipped = append(removed, r...), append(skipped, s...)
			}
			if err == nil && len(removed) == 0 && len(skipped) == 0 && len(stopped) == 0 {
				fmt.Fprintf(stdout, "nothing to remove under %s\n", where)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&o.parent, "parent", "", "cgroup under which slices were created (default: throttlebench at the top of the cpu hierarchy)")
	cmd.Flags().StringVar(&o.version, "cgroup-version", "auto", "cgroup version: auto, 1, 2")
	return cmd
}
