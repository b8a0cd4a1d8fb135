package options

import (
	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cleanup"
	"github.com/throttlebench/throttlebench/internal/config"
)

// Cleanup are the cleanup command's flags as given.
type Cleanup struct {
	Parent  string // --parent; "" for the default
	Version string // --cgroup-version: auto, 1, 2
}

// Resolve finds where cleanup looks, before anything is removed: the cpu
// hierarchy of --cgroup-version on h, and --parent in it, checked as run
// checks it (or the hierarchy's default parent).
func (f Cleanup) Resolve(h cgroup.Host) (cleanup.Where, error) {
	version, err := config.CgroupVersion(f.Version)
	if err != nil {
		return cleanup.Where{}, err
	}
	hier, err := h.CPUHierarchy(version)
	if err != nil {
		return cleanup.Where{}, err
	}
	w := cleanup.Where{Hier: hier, Parent: hier.DefaultParent(), Named: f.Parent != ""}
	if w.Named {
		if w.Parent, err = hier.ParentDir(f.Parent); err != nil {
			return w, badinput.Errorf("parent", "invalid --parent %q: %v", f.Parent, err)
		}
	}
	return w, nil
}
