package sampling

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// script is a clock that wakes when asked and a counter that advances by
// the next of used; it stops (cancel) when used runs out.
type script struct {
	now, total time.Duration
	used       []time.Duration
	stop       func()
	err        error // the counter's, once used runs out
}

func (s *script) Now() time.Duration { return s.now }
func (s *script) SleepUntil(ctx context.Context, at time.Duration) error {
	if len(s.used) == 0 {
		if s.err == nil {
			s.stop()
			return ctx.Err()
		}
		return nil
	}
	s.now, s.total, s.used = at, s.total+s.used[0], s.used[1:]
	return nil
}
func (s *script) Usage() (time.Duration, error) {
	if len(s.used) == 0 && s.err != nil {
		return 0, s.err
	}
	return s.total, nil
}

var cg = cgroup.Cgroup{Hierarchy: cgroup.Hierarchy{Version: 2}, Path: "/job", Dir: "/sys/fs/cgroup/job"}

func TestNotice(t *testing.T) {
	assert.Equal(t, "throttlebench: sampling /sys/fs/cgroup/job every 100ms until Ctrl-C", Notice(usage.Options{Interval: 100 * time.Millisecond}, cg))
	assert.Equal(t, "throttlebench: sampling /sys/fs/cgroup/job every 10ms until the command exits, or Ctrl-C",
		Notice(usage.Options{Interval: 10 * time.Millisecond, Command: []string{"x"}}, cg))
	assert.Empty(t, Notice(usage.Options{Interval: 10 * time.Millisecond, Duration: time.Second}, cg))
}

// What was collected is built, with the counter named for the version;
// an interruption with --duration is the error to end with, after.
func TestRunCutShort(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ms := time.Millisecond
	s := &script{used: []time.Duration{time.Second, 50 * ms, 50 * ms, 50 * ms}, stop: func() { cancel(errors.New("signal: interrupt")) }}
	r := usage.Options{Interval: 100 * ms, Duration: time.Second, Target: 0.01, Period: 100 * ms}
	began := false
	f, after, err := Run(ctx, r, cg, s, s, func() error { began = true; return nil })
	require.NoError(t, err)
	assert.True(t, began)
	assert.Equal(t, "cpu.stat usage_usec", f.Cgroup.Counter)
	assert.EqualError(t, after, "signal: interrupt")
}

// Nothing collected: nothing to write, and why.
func TestRunNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &script{stop: cancel}
	_, _, err := Run(ctx, usage.Options{Interval: 100 * time.Millisecond}, cg, s, s, nil)
	assert.EqualError(t, err, "stopped before the first interval of 100ms ended: nothing to write")

	s = &script{used: []time.Duration{0}, err: syscall.ENODEV}
	_, _, err = Run(context.Background(), usage.Options{Interval: 100 * time.Millisecond}, cg, s, s, nil)
	assert.ErrorIs(t, err, syscall.ENODEV)
}
