package bench

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunShapesTheResult(t *testing.T) {
	cfg := Config{Workload: "bcrypt", Cost: 4, Batch: 3, Iterations: 4, Warmup: 2, Workers: 2, GOMAXPROCS: 2}
	warm := 0
	res, err := Run(context.Background(), cfg, func() error { warm++; return nil })
	require.NoError(t, err)
	assert.Equal(t, 1, warm, "beforeMeasure runs once, after the warm-up")
	assert.Equal(t, 2, res.GOMAXPROCS)
	require.Len(t, res.Iterations, 4, "warm-up iterations are discarded")
	for _, it := range res.Iterations {
		require.Len(t, it.Workers, 2)
		var slowest time.Duration
		for _, w := range it.Workers {
			assert.Positive(t, w.Wall)
			assert.Positive(t, w.CPU, "thread CPU time is measured")
			slowest = max(slowest, w.Wall)
		}
		assert.Equal(t, slowest, it.Wall, "an iteration lasts until its last worker is done")
	}
}

// Each cost step doubles bcrypt's work; thread CPU time must show it.
func TestCostScalesCPUTime(t *testing.T) {
	cpu := func(cost int) time.Duration {
		res, err := Run(context.Background(), Config{Workload: "bcrypt", Cost: cost, Batch: 4, Iterations: 3, Workers: 1, GOMAXPROCS: 1}, nil)
		require.NoError(t, err)
		var sum time.Duration
		for _, it := range res.Iterations {
			sum += it.Workers[0].CPU
		}
		return sum
	}
	ratio := float64(cpu(7)) / float64(cpu(5))
	assert.InDelta(t, 4, ratio, 1.5, "cost 7 vs 5 should take about 4× the CPU")
}

func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, Config{Workload: "bcrypt", Cost: 4, Batch: 1000000, Iterations: 1, Workers: 2, GOMAXPROCS: 2}, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestBeforeMeasureErrorStopsTheRun(t *testing.T) {
	boom := errors.New("boom")
	_, err := Run(context.Background(), Config{Workload: "bcrypt", Cost: 4, Batch: 1, Iterations: 1, Warmup: 1, Workers: 1, GOMAXPROCS: 1},
		func() error { return boom })
	assert.ErrorIs(t, err, boom)
}

func TestGOMAXPROCSRuntimeDefault(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	assert.Equal(t, 3, ApplyGOMAXPROCS(3))
	assert.GreaterOrEqual(t, ApplyGOMAXPROCS(0), 1)
}

func TestNewWorkloadRejects(t *testing.T) {
	_, err := NewWorkload("bcrypt", 3)
	assert.Error(t, err)
	_, err = NewWorkload("md5", 4)
	assert.Error(t, err)
}

// The bare bcrypt call at the harness's default cost: `make bench` compares
// the harness's per-hash time with this.
func BenchmarkBcryptCost4(b *testing.B) {
	w, err := NewWorkload("bcrypt", 4)
	require.NoError(b, err)
	for b.Loop() {
		if err := w.Do(); err != nil {
			b.Fatal(err)
		}
	}
}
