package workload

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"

	"golang.org/x/crypto/bcrypt"

	"github.com/throttlebench/throttlebench/internal/report"
)

var bcryptSpec = Spec{
	Name:    "bcrypt",
	Help:    "bcrypt hashes of fresh random input",
	Compute: true,
	Params: []Param{{Name: "cost", Default: 4, Min: bcrypt.MinCost, Max: bcrypt.MaxCost, OwnKey: true,
		Help: "bcrypt cost, 4–31 (4 ≈ 1ms per hash, each step doubles it)"}},
	Text: func(c report.Config) string { return fmt.Sprintf("bcrypt cost %d", c.Params.Int("cost")) },
	// Its cost is in every benchmark's name already (render's gobench).
	Gobench: func(report.Config) string { return "" },
	new:     newBcrypt,
}

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
