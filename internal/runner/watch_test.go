package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/runner/runnertest"
)

// fakeWatched is sample -- CMD's command on the world's log; done is
// closed when it "exits".
type fakeWatched struct {
	w      *world
	exited string
	done   chan struct{}
}

const fakeServerPid = 4343

func (c *fakeWatched) Pid() int               { return fakeServerPid }
func (c *fakeWatched) Go() error              { return c.w.Step("server go") }
func (c *fakeWatched) Exited() (string, bool) { return c.exited, c.exited != "" }
func (c *fakeWatched) Stop(time.Duration)     { c.w.Step("server stop") }
func (c *fakeWatched) Stderr() string         { return "" }
func (c *fakeWatched) Done() <-chan struct{}  { return c.done }

// watching is the world's Local with c as the command and a fake guard.
func watching(c *fakeWatched) *Local {
	l := c.w.local()
	l.Commands = Commands{
		StartCommand: func(exe string, argv []string) (Watchable, error) {
			return c, c.w.Step("command start " + strings.Join(argv, " "))
		},
		StartGuard: func(exe, dir string) (Guard, error) { return c.w.Guard(), c.w.Step("guard " + dir) },
	}
	return l
}

// The command is guarded, moved into its slice before it runs, measured
// until it exits (the context's cause says so), then stopped, what it
// left killed, and its slice removed.
func TestWatchOrder(t *testing.T) {
	t.Parallel()
	w := &world{}
	c := &fakeWatched{w: w, done: make(chan struct{})}
	var cause error
	got, err := watching(c).Watch(context.Background(), Options{Options: plan.Options{Mode: ModeAuto}, Env: Env{Exe: "/tb"}}, []string{"app", "-x"},
		func(ctx context.Context, cg cgroup.Cgroup, start func() error) error {
			w.Step("measure " + cg.Dir)
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
	assert.Equal(t, cgroup.Limits{}, w.Spec().Limits, "sample measures: no limits")

	slice := runnertest.Hier.DefaultParent() + "/tb-fake"
	at := func(e string) int { return slices.Index(w.Log(), e) }
	order := []string{"create", "guard " + slice, "command start app -x", fmt.Sprintf("move %d", fakeServerPid), "measure " + slice,
		"server go", "server stop", "kill left", "guard done", "delete"}
	for i, e := range order {
		require.GreaterOrEqual(t, at(e), 0, "%s in %q", e, w.Log())
		if i > 0 {
			assert.Less(t, at(order[i-1]), at(e), "%s before %s: %q", order[i-1], e, w.Log())
		}
	}
}

// Measuring that ends first (Ctrl-C, --duration) stops the command,
// which has not exited; a failure anywhere, measure's own before it let
// the command go included, still removes the slice.
func TestWatchStopsOnEveryPath(t *testing.T) {
	t.Parallel()
	for _, fail := range []string{"", "server go", "move 4343", "measure"} {
		w := &world{Kernel: runnertest.Kernel{Fail: map[string]error{}}}
		if fail != "" {
			w.Fail[fail] = errors.New("boom")
		}
		c := &fakeWatched{w: w, done: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		got, err := watching(c).Watch(ctx, Options{Options: plan.Options{Mode: ModeAuto}, Env: Env{Exe: "/tb"}}, []string{"app"},
			func(ctx context.Context, cg cgroup.Cgroup, start func() error) error {
				if err := w.Step("measure"); err != nil {
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
			assert.Contains(t, w.Log(), e, "%q: %q", fail, w.Log())
		}
		if fail == "measure" {
			assert.NotContains(t, w.Log(), "server go", "never let go")
		}
	}
}
