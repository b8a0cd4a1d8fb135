package workload

import (
	crand "crypto/rand"
	"encoding/binary"
	mrand "math/rand/v2"

	"golang.org/x/crypto/bcrypt"

	"github.com/throttlebench/throttlebench/internal/report"
)

func newBcrypt(ps report.Params, _ int) (Workload, error) {
	var seed [32]byte
	if _, err := crand.Read(seed[:]); err != nil {
		return nil, err
	}
	return &bcryptWork{cost: ps.Int("cost"), rng: mrand.NewChaCha8(seed)}, nil
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
