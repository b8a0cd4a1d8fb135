package instances

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRoundUp(t *testing.T) {
	for _, c := range []struct{ d, g, want time.Duration }{
		{2100 * time.Millisecond, time.Millisecond, 2100 * time.Millisecond},
		{2100*time.Millisecond + 1, time.Millisecond, 2101 * time.Millisecond},
		{1, time.Millisecond, time.Millisecond},
		{0, time.Millisecond, time.Millisecond}, // every request at least one granule
		{250 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond},
		{300 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond},
		{1234567, 0, 1234567},
	} {
		assert.Equal(t, c.want, RoundUp(c.d, c.g), "%v at %v", c.d, c.g)
	}
}

// Bills against figures worked out by hand.
func TestComputeBill(t *testing.T) {
	// Three requests at 1 ms granularity: 2100.2 → 2101, 99.0 → 99,
	// 0.3 → 1 ms: 2201 ms. Memory: the first two on a 128 MiB instance
	// (0.125 GB), the third on a 1 GiB one:
	// 2.101 × 0.125 + 0.099 × 0.125 + 0.001 × 1 = 0.262625 + 0.012375 + 0.001 = 0.276 GB-s.
	reqs := []BilledRequest{
		{Duration: 2100*time.Millisecond + 200*time.Microsecond, MemoryBytes: 128 << 20},
		{Duration: 99 * time.Millisecond, MemoryBytes: 128 << 20},
		{Duration: 300 * time.Microsecond, MemoryBytes: 1 << 30},
	}
	// Two instances, 3.17 s and 1.5 s at half a CPU: 4670 ms, 2.335 CPU-s.
	b := Compute(reqs, []time.Duration{3170 * time.Millisecond, 1500 * time.Millisecond}, time.Millisecond, 0.5)
	assert.InDelta(t, 2201, b.RequestMs, 1e-9)
	assert.InDelta(t, 0.276, b.RequestGBs, 1e-12)
	assert.InDelta(t, 4670, b.InstanceMs, 1e-9)
	assert.InDelta(t, 2.335, b.InstanceCPUs, 1e-12)

	// 100 ms granularity, as AWS once billed: 2100.2 → 2200, 99 → 100,
	// 0.3 → 100: 2400 ms; 2.2 × 0.125 + 0.1 × 0.125 + 0.1 × 1 = 0.3875.
	b = Compute(reqs, nil, 100*time.Millisecond, 1)
	assert.InDelta(t, 2400, b.RequestMs, 1e-9)
	assert.InDelta(t, 0.3875, b.RequestGBs, 1e-12)
	assert.Zero(t, b.InstanceMs)

	// The experiment's shape: ten requests of 2.1 s on ten instances of
	// 40 MiB each vs one instance of 60 MiB, granularity 1 ms.
	var ten, one []BilledRequest
	for range 10 {
		ten = append(ten, BilledRequest{Duration: 2100 * time.Millisecond, MemoryBytes: 40 << 20})
		one = append(one, BilledRequest{Duration: 2100 * time.Millisecond, MemoryBytes: 60 << 20})
	}
	// 21 s × 40/1024 GB = 0.8203125; 21 s × 60/1024 = 1.23046875: per
	// request, the shared instance's bigger memory is billed ten times over.
	assert.InDelta(t, 0.8203125, Compute(ten, nil, time.Millisecond, 1).RequestGBs, 1e-12)
	assert.InDelta(t, 1.23046875, Compute(one, nil, time.Millisecond, 1).RequestGBs, 1e-12)
	// By the instance: ten lifetimes of 3.17 s vs one at 1 CPU each.
	lives := make([]time.Duration, 10)
	for i := range lives {
		lives[i] = 3170 * time.Millisecond
	}
	assert.InDelta(t, 31.7, Compute(nil, lives, time.Millisecond, 1).InstanceCPUs, 1e-12)
	assert.InDelta(t, 3.17, Compute(nil, lives[:1], time.Millisecond, 1).InstanceCPUs, 1e-12)
}

func TestComputeIgnoresNegatives(t *testing.T) {
	b := Compute([]BilledRequest{{Duration: -5, MemoryBytes: GB}}, []time.Duration{-time.Second}, time.Millisecond, 1)
	assert.InDelta(t, 1, b.RequestMs, 1e-12, "a clock skew bills one granule, never a credit")
	assert.Zero(t, b.InstanceMs)
}
