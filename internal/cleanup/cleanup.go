package cleanup

import (
	"errors"
	"fmt"
	"io"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// Where is where cleanup looks, as options.Cleanup resolves its flags:
// the cpu hierarchy, and the parent in it (checked), which is the
// hierarchy's default unless Named.
type Where struct {
	Hier   cgroup.Hierarchy
	Parent string
	Named  bool
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

// Run removes what runs that no longer live left, below w.
func Run(h cgroup.Host, w Where) (Result, error) {
	hier, parent := w.Hier, w.Parent
	var err error
	var r Result
	// Where v1 keeps cpuacct or cpusets apart, a run left twins of its
	// slice there, under the same parent path.
	r.Parent.Removed, r.Parent.Skipped, err = h.Tidy(hier, parent, !w.Named)
	r.Where = parent
	// Under systemd, a run's slices were in its own scope in
	// throttlebench.slice: the scopes of runs that no longer live are
	// tidied too, and stopped once empty.
	if !w.Named && hier.WholeV2() {
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
