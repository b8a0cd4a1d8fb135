package options

import (
	"fmt"
	"slices"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/topology"
)

// Placement are what --cpuset and --one-per-core are checked against, read
// once before anything is created.
type Placement struct {
	// Mine are the CPUs this process may use (sched_getaffinity): its own
	// cpuset, a container's, taskset's. nil where not known.
	Mine []int
	// Parent are those the cpuset the slice's would be made in offers;
	// nil where not known (no cpuset controller: the run says so), empty
	// where it offers none (a v1 twin whose cpuset.cpus is empty).
	Parent []int
	// Layout reads the CPU layout, only when --one-per-core needs it.
	Layout func() (*topology.Topology, error)
}

// ReadPlacement reads them for slices created under parent ("" for the default)
// in the cpu hierarchy of the given version.
func ReadPlacement(h cgroup.Host, version int, parent string) *Placement {
	f := &Placement{Layout: func() (*topology.Topology, error) { return topology.Read(h.Root) }}
	f.Mine, _ = topology.Affinity()
	if cpu, err := h.CPUHierarchy(version); err == nil {
		if cpusets, err := h.CpusetHierarchy(cpu); err == nil {
			if parent == "" {
				parent = cpu.DefaultParent()
			}
			f.Parent, _ = cpusets.CpusetCPUs(cpu.TwinDir(cpusets, parent))
		}
	}
	return f
}

// Check refuses a placement this machine cannot give, before anything is
// created: a cpuset with CPUs this process may not use, one per core of
// nothing.
func (f *Placement) Check(c config.Config) error {
	allowed := f.Mine
	if f.Parent != nil {
		allowed = intersect(allowed, f.Parent)
		if f.Mine == nil {
			allowed = f.Parent
		}
	}
	if c.Cpuset != nil && allowed != nil {
		var outside []int
		for _, id := range c.Cpuset {
			if !slices.Contains(allowed, id) {
				outside = append(outside, id)
			}
		}
		if len(outside) > 0 {
			may := cpulist.Format(allowed)
			if len(allowed) == 0 {
				may = "none"
				if f.Parent != nil && len(f.Parent) == 0 {
					may = "none: the cpuset its slice would be made in has no CPUs"
				}
			}
			return badinput.Errorf("cpuset", "invalid --cpuset %q: CPU(s) %s are not among the CPUs this process may use, %s",
				cpulist.Format(c.Cpuset), cpulist.Format(outside), may)
		}
	}
	if c.OnePerCore {
		base := c.Cpuset
		if base == nil {
			base = f.Mine
		}
		if base == nil {
			return fmt.Errorf("--one-per-core: the CPUs this process may use are not known here")
		}
		t, err := f.Layout()
		if err != nil {
			return fmt.Errorf("--one-per-core: read the CPU layout: %w", err)
		}
		if len(t.OnePerCore(base)) == 0 {
			return badinput.Errorf("one-per-core", "invalid --one-per-core: it leaves no CPU of %s (none of them is an online CPU the layout knows, online %s)",
				cpulist.Format(base), cpulist.Format(t.Online))
		}
	}
	return nil
}

func intersect(a, b []int) []int {
	out := []int{}
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
