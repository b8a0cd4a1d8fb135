package httpload_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/httpload"
)

// FineClock never wakes before its instant, spinning or not, and a sleep
// longer than FineLead ends when its context does, within the lead.
func TestFineClock(t *testing.T) {
	for _, spin := range []time.Duration{0, 50 * time.Microsecond} {
		c := httpload.NewFineClock()
		c.Spin = spin
		for _, d := range []time.Duration{0, 300 * time.Microsecond, 3 * time.Millisecond} {
			at := time.Now().Add(d)
			require.NoError(t, c.SleepUntil(context.Background(), at))
			assert.False(t, time.Now().Before(at), "woke before its instant (%v, spin %v)", d, spin)
		}
	}
	c := httpload.NewFineClock()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	begin := time.Now()
	err := c.SleepUntil(ctx, begin.Add(time.Second))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	// 20 ms and a timer's lateness (a few ms on a busy machine).
	assert.Less(t, time.Since(begin), 200*time.Millisecond)
}
