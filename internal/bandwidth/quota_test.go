package bandwidth

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A limit the user gives is taken to the nearest microsecond; one
// throttlebench advises is rounded up, to the millicore and then the
// microsecond.
func TestQuotaRounding(t *testing.T) {
	assert.Equal(t, 30*time.Millisecond, Quota(0.3, 100*time.Millisecond), "0.3 × 1e5 is not exact in floating point")
	assert.Equal(t, 104431*time.Microsecond, Quota(1.044314, 100*time.Millisecond), "to the nearest")
	assert.Equal(t, 104432*time.Microsecond, Quota(1.044316, 100*time.Millisecond), "to the nearest")
	assert.Equal(t, 0.3, QuotaCPUs(0.3, 100*time.Millisecond))
	assert.Equal(t, 1.04431, QuotaCPUs(1.044314, 100*time.Millisecond))
	assert.True(t, math.IsInf(QuotaCPUs(math.Inf(1), 100*time.Millisecond), 1))

	assert.Equal(t, int64(1050), Millicores(1.05), "1050.0000000000002 as a float product")
	assert.Equal(t, int64(1044), Millicores(1.0431), "up")
	assert.Equal(t, 104400*time.Microsecond, AdvisedQuota(1.0431, 100*time.Millisecond), "up to the millicore")
	assert.Equal(t, 2*time.Microsecond, AdvisedQuota(0.0011, time.Millisecond), "then up to the microsecond")
	assert.Equal(t, 262500*time.Microsecond, AdvisedQuota(1.05, 250*time.Millisecond))
}
