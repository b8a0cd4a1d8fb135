package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/plan"
)

// fakeWatched is sample -- CMD's command on the world's log; done is
// closed when it "exits".
type fakeWatched struct {
	fakeServer
	done chan struct{}
}

func (c *fakeWatched) Done() <-chan struct{} { return c.done }

func withWatched(t *testing.T, c *fakeWatched) {
	oldWatched, oldGuard := startWatched, startGuard
	startWatched = func(exe string, argv []string) (watchedHandle, error) {
		return c, c.w.step("command start " + strings.Join(argv, " "))
	}
	startGuard = func(exe, dir string) (guardHandle, error) {
		return fakeGuard{c.w}, c.w.step("guard " + dir)
	}
	t.Cleanup(func() { startWatched, startGuard = oldWatched, oldGuard })
}

// The command is guarded, moved into its slice before it runs, measured
// until it exits (the context's cause says so), then stopped, what it
// left killed, and its slice removed.
func TestWatchOrder(t *testing.T) {
	w := &world{}
	c := &fakeWatched{fakeServer: fakeServer{w: w}, done: make(chan struct{})}
	withWatched(t, c)
	var cause error
	got, err := w.local().Watch(context.Background(), Options{Options: plan.Options{Mode: ModeAuto}, Env: Env{Exe: "/tb"}}, []string{"app", "-x"},
		func(ctx context.Context, cg cgroup.Cgroup, start func() error) error {
			w.step("measure " + cg.Dir)
			require.NoError(t, start())
			c.exited = "exit status 3"
			close(c.done)
			<-ctx.Done()
			cause = context.Cause(ctx)
			return nil
		})
	require.NoError(t, err)
	assert.ErrorIs(t, cause, ErrCommandExited)
	assert.Equal(t, "exit status 3", got.Exit)
	assert.True(t, got.Failed())
	assert.Equal(t, cgroup.Limits{}, w.spec.Limits, "sample measures: no limits")

	slice := fakeHier.DefaultParent() + "/tb-fake"
	at := func(e string) int { return slices.Index(w.log, e) }
	order := []string{"create", "guard " + slice, "command start app -x", fmt.Sprintf("move %d", fakeServerPid), "measure " + slice,
		"server go", "server stop", "kill left", "guard done", "delete"}
	for i, e := range order {
		require.GreaterOrEqual(t, at(e), 0, "%s in %q", e, w.log)
		if i > 0 {
			assert.Less(t, at(order[i-1]), at(e), "%s before %s: %q", order[i-1], e, w.log)
		}
	}
}

// Measuring that ends first (Ctrl-C, --duration) stops the command,
// which has not exited; a failure anywhere, measure's own before it let
// the command go included, still removes the slice.
func TestWatchStopsOnEveryPath(t *testing.T) {
	for _, fail := range []string{"", "server go", "move 4343", "measure"} {
		w := &world{fail: map[string]error{}}
		if fail != "" {
			w.fail[fail] = errors.New("boom")
		}
		c := &fakeWatched{fakeServer: fakeServer{w: w}, done: make(chan struct{})}
		withWatched(t, c)
		ctx, cancel := context.WithCancel(context.Background())
		got, err := w.local().Watch(ctx, Options{Options: plan.Options{Mode: ModeAuto}, Env: Env{Exe: "/tb"}}, []string{"app"},
			func(ctx context.Context, cg cgroup.Cgroup, start func() error) error {
				if err := w.step("measure"); err != nil {
					return err
				}
				if err := start(); err != nil {
					return err
				}
				cancel()
				<-ctx.Done()
				return nil
			})
		cancel()
		if fail == "" {
			require.NoError(t, err)
			assert.Empty(t, got.Exit, "still running when measuring ended")
			assert.False(t, got.Failed())
		} else {
			require.ErrorContains(t, err, "boom", fail)
		}
		for _, e := range []string{"server stop", "kill left", "delete", "guard done"} {
			assert.Contains(t, w.log, e, "%q: %q", fail, w.log)
		}
		if fail == "measure" {
			assert.NotContains(t, w.log, "server go", "never let go")
		}
	}
}
