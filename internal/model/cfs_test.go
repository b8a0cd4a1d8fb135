package model

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParallelism(t *testing.T) {
	cases := []struct {
		name       string
		workers    int
		gomaxprocs int
		cpus       float64
		want       float64
	}{
		{"quota 0.1 CPU limits", 2, 8, 0.1, 0.1},
		{"quota 1.5 CPU limits", 4, 8, 1.5, 1.5},
		{"cpus 0 means unlimited", 2, 8, 0, 2},
		{"negative cpus means unlimited", 2, 8, -1, 2},
		{"+Inf cpus means unlimited", 2, 8, math.Inf(1), 2},
		{"NaN cpus means unlimited", 2, 8, math.NaN(), 2},
		{"gomaxprocs 1 limits", 4, 1, 0, 1},
		{"gomaxprocs 1 beats larger quota", 4, 1, 2, 1},
		{"gomaxprocs limits below cpus", 16, 4, 8, 4},
		{"workers limit", 1, 8, 4, 1},
		{"cpus equal to workers", 2, 8, 2, 2},
		{"gomaxprocs 0 means unknown, unlimited", 3, 0, 0, 3},
		{"no workers", 0, 8, 4, 0},
		{"negative workers", -1, 8, 4, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Parallelism(c.workers, c.gomaxprocs, c.cpus))
		})
	}
}

func TestExpectedDuration(t *testing.T) {
	// 10ms of CPU per iteration at 0.1 CPU -> 100ms wall.
	assert.InDelta(t, 100.0, ExpectedDuration(10, 0.1), 1e-9)
	// 20ms of CPU across 2 workers with 2 CPUs -> 10ms wall.
	assert.Equal(t, 10.0, ExpectedDuration(20, 2))
	// Parallelism 1 leaves the duration equal to the CPU time.
	assert.Equal(t, 7.0, ExpectedDuration(7, 1))
	// No CPU at all: never finishes.
	assert.True(t, math.IsInf(ExpectedDuration(5, 0), 1))
	assert.True(t, math.IsInf(ExpectedDuration(5, -1), 1))
	// No work takes no time.
	assert.Equal(t, 0.0, ExpectedDuration(0, 0))
	assert.Equal(t, 0.0, ExpectedDuration(0, 4))
}

func TestExpectedDurationWithParallelism(t *testing.T) {
	// 2 workers each burning 5ms CPU per iteration = 10ms CPU per iteration.
	// Unlimited: both run at once -> 5ms. Quota 0.5 CPU -> 20ms.
	// GOMAXPROCS 1 -> 10ms.
	assert.Equal(t, 5.0, ExpectedDuration(10, Parallelism(2, 8, 0)))
	assert.Equal(t, 20.0, ExpectedDuration(10, Parallelism(2, 8, 0.5)))
	assert.Equal(t, 10.0, ExpectedDuration(10, Parallelism(2, 1, 0)))
}

func TestPinned(t *testing.T) {
	for _, c := range []struct {
		workers, cpus int
		want          float64
	}{
		{1, 2, 1}, {2, 2, 2}, {3, 2, 1.5}, {4, 2, 2}, {5, 2, 5.0 / 3}, {8, 16, 8}, {2, 1, 1},
		{0, 2, 0}, {2, 0, 0},
	} {
		assert.Equal(t, c.want, Pinned(c.workers, c.cpus), "%d workers on %d CPUs", c.workers, c.cpus)
	}
}
