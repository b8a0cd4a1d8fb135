//go:build linux

package httpload

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"golang.org/x/sys/unix"
)

// sliceClock is the default clock that notes the calling thread's
// scheduler slice at each sleep.
type sliceClock struct {
	*FineClock
	seen []uint64
}

func (c *sliceClock) SleepUntil(ctx context.Context, t time.Time) error {
	if a, err := unix.SchedGetAttr(0, 0); err == nil {
		c.seen = append(c.seen, a.Runtime)
	}
	return c.FineClock.SleepUntil(ctx, t)
}

// During a run every thread that sleeps for an arrival has the short
// slice; after it, every thread of the process has the default back.
func TestShortSliceDuringRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	a, err := unix.SchedGetAttr(0, 0)
	require.NoError(t, err)
	base := a.Runtime // the default slice in force (1.4 ms here)
	require.NotEqualValues(t, schedSlice, base)
	clk := &sliceClock{FineClock: NewFineClock()}
	sched := []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}
	res, err := Run(context.Background(), Config{Request: runspec.Request{URL: srv.URL, Connections: 2}, Clock: clk}, sched)
	require.NoError(t, err)
	require.Equal(t, 4, res.OK)
	require.Len(t, clk.seen, 4)
	for _, s := range clk.seen {
		assert.EqualValues(t, schedSlice, s, "the slice while waiting for an arrival")
	}
	eachThread(func(tid int) {
		a, err := unix.SchedGetAttr(tid, 0)
		if err == nil {
			assert.Equal(t, base, a.Runtime, "thread %d after the run", tid)
		}
	})
}
