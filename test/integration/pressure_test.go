//go:build linux

package integration

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkPressure holds a window's contention block to the kernel's CPU
// pressure: on v2 (the v2 guest's lane, where the tests that call it are
// listed in test/vm/v2/guest.sh) both totals and both shares are there,
// none negative, no share above the window; on v1 (the host lane) all
// four are null, as the kernel keeps no pressure per cgroup there. It
// returns the block for the caller's own bounds (nil on v1).
func checkPressure(t *testing.T, version int, c *contention) *contention {
	t.Helper()
	require.NotNil(t, c, "the window's threads were read")
	if version != 2 {
		assert.Nil(t, c.PressureSomeMs, "v1 keeps no cpu.pressure")
		assert.Nil(t, c.PressureFullMs)
		assert.Nil(t, c.PressureSomeShare)
		assert.Nil(t, c.PressureFullShare)
		return nil
	}
	for name, v := range map[string]*float64{"pressure_some_ms": c.PressureSomeMs, "pressure_full_ms": c.PressureFullMs,
		"pressure_some_share": c.PressureSomeShare, "pressure_full_share": c.PressureFullShare} {
		require.NotNil(t, v, "%s: v2 keeps the cgroup's cpu.pressure (Debian's kernel has PSI on)", name)
		assert.GreaterOrEqual(t, *v, 0.0, name)
	}
	// A share is a total's growth over the time between its two readings,
	// which the growth cannot exceed; 1% for the kernel's accounting of
	// the stretch under way at each reading (PSI folds its running state
	// into the totals when it next changes).
	assert.LessOrEqual(t, *c.PressureSomeShare, 1.01)
	assert.LessOrEqual(t, *c.PressureFullShare, *c.PressureSomeShare+1e-9, "all threads waiting is a case of some waiting")
	assert.LessOrEqual(t, *c.PressureFullMs, *c.PressureSomeMs+1e-6)
	return c
}
