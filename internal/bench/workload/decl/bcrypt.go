package decl

import (
	"fmt"

	"github.com/throttlebench/throttlebench/internal/report"
)

// Bounds of bcrypt's cost: golang.org/x/crypto/bcrypt's MinCost and
// MaxCost, which internal/bench/workload's test holds them to.
const (
	BcryptMinCost = 4
	BcryptMaxCost = 31
)

var bcryptSpec = Spec{
	Name:    "bcrypt",
	Help:    "bcrypt hashes of fresh random input",
	Compute: true,
	Params: []Param{{Name: "cost", Default: 4, Min: BcryptMinCost, Max: BcryptMaxCost, OwnKey: true,
		Help: "bcrypt cost, 4–31 (4 ≈ 1ms per hash, each step doubles it)"}},
	Text: func(c report.Config) string { return fmt.Sprintf("bcrypt cost %d", c.Params.Int("cost")) },
	// Its cost is in every benchmark's name already (render's gobench).
	Gobench: func(report.Config) string { return "" },
}
