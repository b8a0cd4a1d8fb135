package workload

import (
	crand "crypto/rand"
	"encoding/binary"
	mrand "math/rand/v2"

	"golang.org/x/crypto/bcrypt"
)

func init() {
	register(Spec{
		Name:    "bcrypt",
		Help:    "bcrypt hashes of fresh random input",
		Compute: true,
		Params: []Param{{Name: "cost", Default: 4, Min: bcrypt.MinCost, Max: bcrypt.MaxCost,
			Help: "bcrypt cost, 4–31 (4 ≈ 1ms per hash, each step doubles it)"}},
		new: newBcrypt,
	})
}

func newBcrypt(args Args) (Workload, error) {
	var seed [32]byte
	if _, err := crand.Read(seed[:]); err != nil {
		return nil, err
	}
	return &bcryptWork{cost: args["cost"], rng: mrand.NewChaCha8(seed)}, nil
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
