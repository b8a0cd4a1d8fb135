package bandwidth

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The change over a window, and a fleet's sum: a counter missing from
// either side is missing from the answer, never a made-up zero, and one
// that went backwards has no change to report.
func TestCPUStatSubAndAdd(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	d := func(v time.Duration) *time.Duration { return &v }
	a := CPUStat{NrPeriods: u(10), NrThrottled: u(4), ThrottledTime: d(30 * time.Millisecond), NrBursts: u(1)}
	b := CPUStat{NrPeriods: u(25), NrThrottled: u(3), ThrottledTime: d(50 * time.Millisecond)}

	diff := b.Sub(a)
	require.NotNil(t, diff.NrPeriods)
	assert.Equal(t, uint64(15), *diff.NrPeriods)
	assert.Nil(t, diff.NrThrottled, "went backwards: no change to report")
	assert.Equal(t, 20*time.Millisecond, *diff.ThrottledTime)
	assert.Nil(t, diff.NrBursts, "missing after")

	sum := a.Add(b)
	assert.Equal(t, uint64(35), *sum.NrPeriods)
	assert.Equal(t, uint64(7), *sum.NrThrottled)
	assert.Equal(t, 80*time.Millisecond, *sum.ThrottledTime)
	assert.Nil(t, sum.NrBursts, "one side lacks it")
	assert.Nil(t, sum.BurstTime)
}

func TestEffectiveCPUs(t *testing.T) {
	chain := []Level{{Limits: Limits{Period: 100 * time.Millisecond, Quota: 50 * time.Millisecond}},
		{Limits: Limits{Period: 100 * time.Millisecond, Quota: 150 * time.Millisecond}}}
	assert.Equal(t, 0.5, EffectiveCPUs(chain, 4), "the tightest level")
	assert.Equal(t, 2.0, EffectiveCPUs([]Level{{Limits: Limits{Period: time.Second, Quota: Unlimited}}}, 2), "the CPUs allowed, without a quota")
	assert.True(t, math.IsInf(EffectiveCPUs(nil, 0), 1), "neither: no bound")
}
