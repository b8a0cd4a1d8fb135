package decl

import (
	"fmt"

	"github.com/throttlebench/throttlebench/internal/report"
)

var spinSpec = Spec{
	Name:    "spin",
	Help:    "a tight integer loop: units of 1000 dependent xorshift64 steps",
	Compute: true,
	Params: []Param{{Name: "units", Default: 1000, Min: 1, Max: 1_000_000_000,
		Help: "spin: units per operation, a unit being 1000 dependent xorshift64 steps (about 1.6 µs on an AMD EPYC core)"}},
	Text: func(c report.Config) string { return fmt.Sprintf("spin %d units", c.Params.Int("units")) },
}
