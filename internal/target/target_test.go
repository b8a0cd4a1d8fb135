package target

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/runner/runnertest"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// fakeServer is --serve's process on the world's log: it serves nothing
// (the test's httptest server does), it says what it was told.
type fakeServer struct {
	w      *world
	ready  error
	exited string
	stderr string
	env    []string // what it was started with
	ours   func() (bool, error)
}

const fakeServerPid = 4343

func (s *fakeServer) Pid() int  { return fakeServerPid }
func (s *fakeServer) Go() error { return s.w.Step("server go") }
func (s *fakeServer) Ready(ctx context.Context, addr string, _ time.Duration, ours func() (bool, error)) error {
	s.ours = ours
	if err := s.w.Step("server ready " + addr); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return s.ready
}
func (s *fakeServer) Exited() (string, bool) { return s.exited, s.exited != "" }
func (s *fakeServer) Stop(time.Duration)     { s.w.Step("server stop") }
func (s *fakeServer) Stderr() string         { return s.stderr }

func targetOptions(t *testing.T) (runner.Options, *Target, string) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/teapot" {
			w.WriteHeader(http.StatusTeapot)
		}
	}))
	t.Cleanup(ts.Close)
	o := runner.Options{Options: plan.Options{Mode: runner.ModeAuto, LimitsSet: true,
		Open: runspec.OpenLoop{Rate: 200, Arrivals: runspec.ArrivalsFixed, Duration: 100 * time.Millisecond, Workers: 4, Work: time.Millisecond}},
		Env: runner.Env{Exe: "/tb"}}
	tgt := &Target{Target: plan.Target{Serve: []string{"my-server", "--port", "1"}, ServeReady: time.Second,
		HTTP: runspec.Request{URL: ts.URL + "/", Connections: 2, Timeout: time.Second}}, KeepGC: true}
	return o, tgt, strings.TrimPrefix(ts.URL, "http://")
}

// The server is started, moved into the slice before it runs, waited for,
// measured, and stopped before the slice goes; every request is counted
// and in the histogram, from its scheduled arrival.
func TestTargetServedOrder(t *testing.T) {
	t.Parallel()
	w := newWorld(10, 12)
	srv := &fakeServer{w: w}
	o, tgt, addr := targetOptions(t)
	rep, err := w.engine(srv).Run(context.Background(), o, tgt)
	require.NoError(t, err)
	at := func(e string) int { return slices.Index(w.Log(), e) }
	for _, e := range []string{"create", "guard " + runnertest.Hier.DefaultParent() + "/tb-fake", "guard done", "server start my-server --port 1", fmt.Sprintf("move %d", fakeServerPid), "server go", "server ready " + addr, "server stop", "kill left", "delete"} {
		require.GreaterOrEqual(t, at(e), 0, "%s in %q", e, w.Log())
	}
	assert.Less(t, at(fmt.Sprintf("move %d", fakeServerPid)), at("server go"), "in the slice before it runs")
	assert.Less(t, at("server ready "+addr), at("stat"), "the window opens once it is ready")
	assert.Less(t, at("server stop"), at("delete"), "stopped before the slice goes")
	assert.Less(t, at("kill left"), at("delete"))
	assert.Less(t, at("guard "+runnertest.Hier.DefaultParent()+"/tb-fake"), at("server start my-server --port 1"), "guarded before the server starts")
	assert.Less(t, at("kill left"), at("guard done"), "told all is well once nothing is left")

	require.NotNil(t, rep.TargetResult)
	assert.Equal(t, 20, rep.HTTP.Requests, "200/s for 100 ms")
	assert.Equal(t, 20, rep.HTTP.Status2xx)
	assert.Equal(t, 20, rep.Completed)
	assert.Equal(t, uint64(2), *rep.Throttling.NrPeriods, "the slice's counters around the window")
	assert.Equal(t, []string{"my-server", "--port", "1"}, rep.Config.Serve)
	assert.Equal(t, 2, rep.Config.Connections)
	assert.Equal(t, 0.0, rep.Config.WorkMs, "no built-in work")
	assert.Equal(t, 0, rep.Config.Workers)
	require.NotNil(t, rep.FloorMs, "the client's floor")
	h, err := hdrhistogram.Decode([]byte(rep.Histogram))
	require.NoError(t, err, "histogram_hdr decodes")
	assert.Equal(t, int64(20), h.TotalCount())
	assert.Empty(t, rep.ServerExited)
	assert.NotContains(t, strings.Join(report.Texts(rep.Warnings), "\n"), "failed requests")
}

// --gomaxprocs reaches --serve's server as its environment's GOMAXPROCS,
// floor and ceil computed from the limit (1.5 CPUs of 4: 1 and 2), and the
// report says what the server was given; left to the server, nothing is
// set and the report says runtime, 0, as this process cannot see it.
func TestTargetServerGOMAXPROCS(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		policy string
		want   int
	}{{"floor", 1}, {"ceil", 2}, {"3", 3}, {"runtime", 0}, {"workers", 0}} {
		t.Run(c.policy, func(t *testing.T) {
			t.Parallel()
			w := newWorld(10, 12)
			srv := &fakeServer{w: w}
			o, tgt, _ := targetOptions(t)
			o.Policy, o.CPUs = c.policy, []int{0, 1, 2, 3}
			o.Limits = bandwidth.Limits{Period: 100 * time.Millisecond, Quota: 150 * time.Millisecond}
			rep, err := w.engine(srv).Run(context.Background(), o, tgt)
			require.NoError(t, err, c.policy)
			assert.Equal(t, c.want, rep.Config.GOMAXPROCS, c.policy)
			if c.want > 0 {
				assert.Contains(t, srv.env, fmt.Sprintf("GOMAXPROCS=%d", c.want), c.policy)
				assert.Equal(t, c.policy, rep.Config.GOMAXPROCSPolicy)
			} else {
				assert.NotContains(t, strings.Join(srv.env, " "), "GOMAXPROCS", c.policy)
				assert.Equal(t, "runtime", rep.Config.GOMAXPROCSPolicy)
			}
		})
	}
}

func TestTargetServerNeverReady(t *testing.T) {
	t.Parallel()
	w := newWorld()
	srv := &fakeServer{w: w, ready: errors.New("did not listen"), stderr: "line 1\naddress already in use\n"}
	o, tgt, _ := targetOptions(t)
	_, err := w.engine(srv).Run(context.Background(), o, tgt)
	require.Error(t, err)
	assert.Equal(t, "the server `my-server --port 1` did not listen; its stderr ends:\n    line 1\n    address already in use", err.Error())
	assert.NotContains(t, w.Log(), "stat", "no window")
	assert.Less(t, slices.Index(w.Log(), "server stop"), slices.Index(w.Log(), "delete"))
}

func TestTargetCancelledWhileWaiting(t *testing.T) {
	t.Parallel()
	w := newWorld()
	ctx, cancel := context.WithCancel(context.Background())
	w.On = map[string]func(){}
	srv := &fakeServer{w: w}
	o, tgt, addr := targetOptions(t)
	w.On["server ready "+addr] = cancel
	_, err := w.engine(srv).Run(ctx, o, tgt)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, w.Log(), "server stop")
	assert.Contains(t, w.Log(), "delete")
}

// A server that exited on its own during the run: said, with its status,
// and the requests it did not answer counted.
func TestTargetServerExited(t *testing.T) {
	t.Parallel()
	w := newWorld(1, 2)
	srv := &fakeServer{w: w, exited: "exit status 2", stderr: "panic: boom\n\ngoroutine 1 [running]:\n"}
	o, tgt, _ := targetOptions(t)
	tgt.HTTP.URL += "teapot"
	rep, err := w.engine(srv).Run(context.Background(), o, tgt)
	require.NoError(t, err)
	assert.Equal(t, "exit status 2", rep.ServerExited)
	assert.Equal(t, []string{"panic: boom", "", "goroutine 1 [running]:"}, rep.ServerStderr, "its stderr's lines")
	all := strings.Join(report.Texts(rep.Warnings), "\n")
	assert.Contains(t, all, "the server `my-server --port 1` exited during the run (exit status 2; the end of its stderr is in server_stderr)")
	assert.True(t, report.HasKind(rep.Warnings, report.KindServerExited))
	assert.Equal(t, 20, rep.HTTP.Status4xx)
	assert.Equal(t, 20, rep.HTTP.HTTPErrors)
	// Which of them failed is --accept-status's to say: build.JudgeTarget's.
	assert.NotContains(t, all, "failed requests")
}

// Without --serve and --cgroup: no slice, no counters, and a warning.
func TestTargetRunningNoCgroup(t *testing.T) {
	t.Parallel()
	w := newWorld()
	o, tgt, _ := targetOptions(t)
	tgt.Serve = nil
	rep, err := w.engine(&fakeServer{w: w}).Run(context.Background(), o, tgt)
	require.NoError(t, err)
	assert.NotContains(t, w.Log(), "create")
	assert.Nil(t, rep.Throttling.NrPeriods, "null, not 0")
	assert.Equal(t, "none", rep.Cgroup.Mode)
	assert.Contains(t, strings.Join(report.Texts(rep.Warnings), "\n"), "no cgroup counters")
	assert.True(t, report.HasKind(rep.Warnings, report.KindNoCounters))
	assert.False(t, report.HasKind(rep.Warnings, report.KindNoPeak), "a client outside the server's cgroup has no peak to miss")
}

func TestHostPort(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://127.0.0.1:8080/x": "127.0.0.1:8080", "http://example.com/": "example.com:80",
		"https://example.com": "example.com:443", "http://[::1]:9/": "[::1]:9",
	} {
		got, err := HostPort(in)
		require.NoError(t, err)
		assert.Equal(t, want, got, in)
	}
}
