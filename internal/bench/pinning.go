package bench

import (
	"fmt"
	"runtime"

	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/topology"
)

// Placement: which CPUs the workers' threads may run on, decided once
// before they start, from the CPUs this process may use where it runs (its
// affinity after it was placed in its slice: its cpuset, a container's,
// taskset's). With OnePerCore the workers get one hardware thread of each
// core of those (the effect of taking the SMT siblings offline); with Pin
// each worker gets one CPU of them, worker i the i-th (round again past
// the last), as Indeed's fibtest pins each thread to its own CPU.

// placer reads and sets what placement needs; tests replace it.
type placer struct {
	affinity    func() ([]int, error)
	layout      func() (*topology.Topology, error)
	setAffinity func([]int) error
}

var kernelPlacer = placer{
	affinity:    topology.Affinity,
	layout:      func() (*topology.Topology, error) { return topology.Read("/") },
	setAffinity: topology.SetAffinity,
}

// pinning is where the workers run: the placement decided before they start.
type pinning struct {
	cpus []int // the workers' CPUs; nil where the affinity is not known
	pin  bool
	// own: each worker's thread gets an affinity of its own (Pin or
	// OnePerCore); else threads keep the process's.
	own bool
	set func([]int) error
}

func (pl placer) place(cfg runspec.ClosedLoop) (pinning, error) {
	own := cfg.Pin || cfg.OnePerCore
	cpus, err := pl.affinity()
	if err != nil {
		if own {
			return pinning{}, fmt.Errorf("placement needs the CPUs this process may use: %w", err)
		}
		return pinning{}, nil // unknown: the report counts the machine's CPUs
	}
	if cfg.OnePerCore {
		t, err := pl.layout()
		if err != nil {
			return pinning{}, fmt.Errorf("one per core: read the CPU layout: %w", err)
		}
		allowed := cpus
		if cpus = t.OnePerCore(allowed); len(cpus) == 0 {
			return pinning{}, fmt.Errorf("one per core: none of the CPUs %s this process may use is online", cpulist.Format(allowed))
		}
	}
	return pinning{cpus: cpus, pin: cfg.Pin, own: own, set: pl.setAffinity}, nil
}

// cpu is worker id's CPU with Pin.
func (p pinning) cpu(id int) int { return p.cpus[id%len(p.cpus)] }

// pinned lists each worker's CPU with Pin, by worker; nil without.
func (p pinning) pinned(workers int) []int {
	if !p.pin {
		return nil
	}
	out := make([]int, workers)
	for id := range out {
		out[id] = p.cpu(id)
	}
	return out
}

// apply gives worker id's thread its affinity. The worker calls it first
// thing, locked to its OS thread (a worker with an affinity of its own is
// never a lone one).
func (p pinning) apply(id int) error {
	if !p.own {
		return nil
	}
	set := p.cpus
	if p.pin {
		set = []int{p.cpu(id)}
	}
	if err := p.set(set); err != nil {
		return fmt.Errorf("place worker %d: %w", id, err)
	}
	// Locked once more, never undone: the goroutine ends locked, and the
	// runtime ends its thread with it rather than hand the changed affinity
	// to other goroutines (current mode runs in throttlebench itself).
	runtime.LockOSThread()
	return nil
}
