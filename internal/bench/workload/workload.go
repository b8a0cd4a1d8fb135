package workload

import (
	"fmt"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/report"
)

// Workload is one unit of work. A Workload is used by one worker only, so
// it may keep state; each worker gets its own from New.
type Workload interface {
	Do() error
}

// impls are the workloads' implementations by their declared names
// (decl.Names): each builds one worker's instance from complete, checked
// values and the closed loop's batch (memtouch's reuse keeps a buffer per
// operation of it). TestEveryDeclarationImplemented holds the two to the
// same names.
var impls = map[string]func(p report.Params, batch int) (Workload, error){
	"bcrypt":   newBcrypt,
	"spin":     newSpin,
	"memtouch": newMemtouch,
	"command":  newCommand,
}

// New returns a fresh instance of the named workload for one worker, from
// its config (decl.Spec.Complete fills and checks it) and the closed
// loop's batch.
func New(name string, ps report.Params, batch int) (Workload, error) {
	s, err := decl.Lookup(name)
	if err != nil {
		return nil, err
	}
	full, err := s.Complete(ps)
	if err != nil {
		return nil, err
	}
	if s.Check != nil {
		if _, msg := s.Check(full, batch); msg != "" {
			return nil, fmt.Errorf("%w: %s", decl.ErrBadConfig, msg)
		}
	}
	impl, ok := impls[name]
	if !ok {
		return nil, fmt.Errorf("%w: workload %q declared but not implemented", decl.ErrBadConfig, name)
	}
	return impl(full, batch)
}
