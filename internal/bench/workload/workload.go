// Package workload holds the operations a worker repeats, one file per
// workload. Each registers a Spec at init: its name (--workload and the
// JSON config's "workload"), its parameters (each a flag and a key of the
// JSON config, with a default and an allowed range) and a constructor. The
// drivers (internal/bench) decide when and how often Do runs; a workload
// knows nothing of iterations, threads or cgroups.
package workload

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Workload is one unit of work. A Workload is used by one worker only, so
// it may keep state; each worker gets its own from Spec.New.
type Workload interface {
	Do() error
}

// ErrBadConfig is wrapped by every error about a workload's name or
// parameters, so that the child protocol can tell a configuration that
// cannot run from a workload that failed while running.
var ErrBadConfig = errors.New("invalid workload configuration")

// Param is one parameter a workload takes. Name is its flag (--cost) and
// its key in Args; the JSON config names it the same, with its unit where it
// has one (buffer_bytes).
type Param struct {
	Name     string
	Default  int
	Min, Max int // allowed range, both included
	Help     string
	// Words, when set, are the values it takes (--memory fresh|reuse): the
	// value in Args is the word's index, Min 0 and Max len(Words)-1.
	Words []string
}

// Args are parameter values by Param.Name.
type Args map[string]int

// Spec declares a workload.
type Spec struct {
	Name   string
	Help   string
	Params []Param
	// Compute says an operation only computes: no memory mapped or
	// unmapped, no file, no sleep, no system call the Go scheduler sees
	// (bcrypt's random salt is read from the vDSO, or on kernels before
	// 6.11 by one short getrandom). The closed loop may then run a lone
	// worker without locking it to its thread (bench.RunAlone): nothing
	// it does lets another thread take over its work.
	Compute bool
	// new builds one worker's instance from complete, checked args.
	new func(Args) (Workload, error)
}

// New returns a fresh instance for one worker. A parameter missing from
// args takes its default; one outside its range is refused. Args the
// workload does not declare are ignored: the configuration carries the
// parameters of every workload, whichever was chosen.
func (s Spec) New(args Args) (Workload, error) {
	full := Args{}
	for _, p := range s.Params {
		v, ok := args[p.Name]
		if !ok {
			v = p.Default
		}
		if v < p.Min || v > p.Max {
			return nil, fmt.Errorf("%w: %s %s %d outside %d–%d", ErrBadConfig, s.Name, p.Name, v, p.Min, p.Max)
		}
		full[p.Name] = v
	}
	return s.new(full)
}

var registry = map[string]Spec{}

// register adds a workload; each workload's file calls it from init.
func register(s Spec) {
	if _, dup := registry[s.Name]; dup {
		panic("workload registered twice: " + s.Name)
	}
	registry[s.Name] = s
}

// Lookup returns the named workload's Spec.
func Lookup(name string) (Spec, error) {
	s, ok := registry[name]
	if !ok {
		return Spec{}, fmt.Errorf("%w: unknown workload %q", ErrBadConfig, name)
	}
	return s, nil
}

// New returns a fresh instance of the named workload for one worker.
func New(name string, args Args) (Workload, error) {
	s, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return s.New(args)
}

// Names lists the workloads --workload accepts, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(registry))
}
