package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/cgroup"
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
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkChoice("cgroup-version", o.version, []string{"auto", "1", "2"}); err != nil {
				return err
			}
			version, _ := strconv.Atoi(o.version)
			hier, err := cgroup.Host{Root: "/"}.CPUHierarchy(version)
			if err != nil {
				return err
			}
			parent := hier.DefaultParent()
			if o.parent != "" {
				if parent, err = hier.ParentDir(o.parent); err != nil {
					return err
				}
			}
			removed, err := cgroup.CleanStale(parent)
			for _, d := range removed {
				fmt.Fprintf(stdout, "removed %s\n", d)
			}
			if err == nil && len(removed) == 0 {
				fmt.Fprintf(stdout, "nothing to remove under %s\n", parent)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&o.parent, "parent", "", "cgroup under which slices were created (default: throttlebench at the top of the cpu hierarchy)")
	cmd.Flags().StringVar(&o.version, "cgroup-version", "auto", "cgroup version: auto, 1, 2")
	return cmd
}
