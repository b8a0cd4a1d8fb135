package sweep

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestEstimate(t *testing.T) {
	e := NewEstimator()
	// 1ms per hash × 50 hashes × 6 iterations on 0.5 CPUs: 600ms.
	s := Shape{Cost: 4, Batch: 50, Iterations: 5, Warmup: 1, Workers: 1, GOMAXPROCS: 1, CPUs: 0.5, NumCPU: 2}
	assert.InDelta(t, 0.6, e.EstimateSeconds(s), 1e-9)
	assert.Equal(t, 600*time.Millisecond, e.Estimate(s))

	// Cost 31 on a thousand workers is centuries: the Duration saturates
	// instead of wrapping to a negative time; the seconds do not.
	huge := Shape{Cost: 31, Batch: 1_000_000, Iterations: 1_000_000, Workers: 1000, GOMAXPROCS: 1000, CPUs: 0.01, NumCPU: 2}
	assert.Equal(t, time.Duration(math.MaxInt64), e.Estimate(huge))
	assert.Greater(t, e.EstimateSeconds(huge), 1e20)
}
