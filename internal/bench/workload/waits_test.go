package workload

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

type counter struct{ n int }

func (c *counter) Do() error { c.n++; return nil }

// After every `every` operations one sleep: 7 operations every 3 → 2 sleeps.
func TestWithWaitsSleepsAfterEveryK(t *testing.T) {
	c := &counter{}
	w := WithWaits(c, 5*time.Millisecond, 3)
	start := time.Now()
	for range 7 {
		assert.NoError(t, w.Do())
	}
	assert.Equal(t, 7, c.n)
	assert.GreaterOrEqual(t, time.Since(start), 10*time.Millisecond)
	assert.Equal(t, 1, w.(*waits).n, "the count carries over to the next batch")
	assert.Same(t, Workload(c), WithWaits(c, 0, 3), "no sleep: the workload as it is")
}
