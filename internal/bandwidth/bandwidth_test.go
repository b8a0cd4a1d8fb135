package bandwidth

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCPUs(t *testing.T) {
	assert.Equal(t, 0.5, Limits{Period: 100 * time.Millisecond, Quota: 50 * time.Millisecond}.CPUs())
	assert.True(t, math.IsInf(Limits{Period: 100 * time.Millisecond, Quota: Unlimited}.CPUs(), 1))
	assert.True(t, math.IsInf(Limits{Quota: 50 * time.Millisecond}.CPUs(), 1), "no period: no bandwidth files")
}
