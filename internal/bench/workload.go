// Package bench runs the CPU-bound workload: warm-up and measured iterations
// of batches on worker threads, with per-worker wall and thread CPU times.
package bench

import (
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"

	crand "crypto/rand"

	"golang.org/x/crypto/bcrypt"
)

// Workload is one unit of CPU-bound work. A Workload is used by one worker
// only, so it may keep state.
type Workload interface {
	Do() error
}

// Workloads lists the workload names --workload accepts.
var Workloads = []string{"bcrypt"}

// NewWorkload returns a fresh instance of the named workload for one worker.
func NewWorkload(name string, cost int) (Workload, error) {
	switch name {
	case "bcrypt":
		if cost < bcrypt.MinCost || cost > bcrypt.MaxCost {
			return nil, fmt.Errorf("bcrypt cost %d outside %d–%d", cost, bcrypt.MinCost, bcrypt.MaxCost)
		}
		var seed [32]byte
		if _, err := crand.Read(seed[:]); err != nil {
			return nil, err
		}
		return &bcryptWork{cost: cost, rng: mrand.NewChaCha8(seed)}, nil
	}
	return nil, fmt.Errorf("unknown workload %q", name)
}

// bcryptWork hashes fresh random input each time, so nothing can be cached
// and every hash costs the same.
type bcryptWork struct {
	cost int
	rng  *mrand.ChaCha8
	pw   [24]byte
}

func (w *bcryptWork) Do() error {
	for i := 0; i < len(w.pw); i += 8 {
		binary.LittleEndian.PutUint64(w.pw[i:], w.rng.Uint64())
	}
	_, err := bcrypt.GenerateFromPassword(w.pw[:], w.cost)
	return err
}
