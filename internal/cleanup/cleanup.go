package cleanup

import (
	"errors"
	"fmt"
	"io"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/config"
)

// Flags are the cleanup command's flags as given.
type Flags struct {
	Parent  string // --parent; "" for the default
	Version string // --cgroup-version: auto, 1, 2
}

// Part is what was done in one place.
type Part struct {
	Removed, Stopped []string
	Skipped          []cgroup.Skipped
}

// Result is what Run did: under the parent, and in throttlebench.slice
// where it looked there (Scopes non-nil). Where names where it looked.
type Result struct {
	Parent Part
	Scopes *Part
	Where  string
}

// Run removes what runs that no longer live left. A bad --parent or
// --cgroup-version is a badinput.Error, found before anything is removed.
func Run(h cgroup.Host, f Flags) (Result, error) {
	version, err := config.CgroupVersion(f.Version)
	if err != nil {
		return Result{}, err
	}
	hier, err := h.CPUHierarchy(version)
	if err != nil {
		return Result{}, err
	}
	parent := hier.DefaultParent()
	if f.Parent != "" {
		if parent, err = hier.ParentDir(f.Parent); err != nil {
			return Result{}, badinput.Errorf("parent", "invalid --parent %q: %v", f.Parent, err)
		}
	}
	var r Result
	// Where v1 keeps cpuacct or cpusets apart, a run left twins of its
	// slice there, under the same parent path.
	r.Parent.Removed, r.Parent.Skipped, err = h.Tidy(hier, parent, f.Parent == "")
	r.Where = parent
	// Under systemd, a run's slices were in its own scope in
	// throttlebench.slice: the scopes of runs that no longer live are
	// tidied too, and stopped once empty.
	if f.Parent == "" && hier.WholeV2() {
		r.Where += " nor in " + cgroup.ScopeSliceDir(hier)
		s := &Part{}
		var serr error
		s.Removed, s.Stopped, s.Skipped, serr = h.CleanScopes(hier)
		err = errors.Join(err, serr)
		r.Scopes = s
	}
	return r, err
}

// Nothing says whether nothing was found to remove, stop or leave.
func (r Result) Nothing() bool {
	n := len(r.Parent.Removed) + len(r.Parent.Skipped)
	if r.Scopes != nil {
		n += len(r.Scopes.Removed) + len(r.Scopes.Stopped) + len(r.Scopes.Skipped)
	}
	return n == 0
}

// Write lists what was done, a line each, in the order it was done; and,
// where it all went well (failed false) and nothing was found, says so.
func (r Result) Write(w io.Writer, failed bool) {
	for _, d := range r.Parent.Removed {
		fmt.Fprintf(w, "removed %s\n", d)
	}
	for _, s := range r.Parent.Skipped {
		fmt.Fprintf(w, "left %s: %s\n", s.Dir, s.Reason)
	}
	if s := r.Scopes; s != nil {
		for _, d := range s.Removed {
			fmt.Fprintf(w, "removed %s\n", d)
		}
		for _, u := range s.Stopped {
			fmt.Fprintf(w, "stopped %s\n", u)
		}
		for _, k := range s.Skipped {
			fmt.Fprintf(w, "left %s: %s\n", k.Dir, k.Reason)
		}
	}
	if !failed && r.Nothing() {
		fmt.Fprintf(w, "nothing to remove under %s\n", r.Where)
	}
}
