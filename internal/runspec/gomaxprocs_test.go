package runspec

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// floor is automaxprocs' rule, ceil Go 1.25's default; they differ at a
// fractional quota.
func TestRuleGOMAXPROCS(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		rule       string
		cpus       float64
		ncpu, want int
	}{
		{RuleFloor, 0.5, 8, 1}, {RuleCeil, 0.5, 8, 2},
		{RuleFloor, 1.5, 8, 1}, {RuleCeil, 1.5, 8, 2},
		{RuleFloor, 2.5, 8, 2}, {RuleCeil, 2.5, 8, 3},
		{RuleFloor, 4, 8, 4}, {RuleCeil, 4, 8, 4},
		{RuleFloor, 16, 8, 16}, {RuleCeil, 16, 8, 8}, // ceil never above the CPUs; automaxprocs does not cap
		{RuleCeil, 0.5, 1, 1},                         // Go's 2 is at most the CPUs
		{RuleFloor, inf, 8, 8}, {RuleCeil, inf, 8, 8}, // no quota: the CPUs
	} {
		assert.Equal(t, c.want, RuleGOMAXPROCS(c.rule, c.cpus, c.ncpu), "%s at %v CPUs of %d", c.rule, c.cpus, c.ncpu)
	}
	cfg := ClosedLoop{GOMAXPROCSRule: RuleCeil}.WithQuota(2.5, 8)
	assert.Equal(t, 3, cfg.GOMAXPROCS)
	assert.Equal(t, 5, ClosedLoop{GOMAXPROCS: 5}.WithQuota(0.5, 8).GOMAXPROCS, "no rule: as given")
}
