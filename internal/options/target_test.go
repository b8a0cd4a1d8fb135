package options

import (
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// A port that was taken is free once closed; {port} is always free, as
// throttlebench picks it.
func TestServePortFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	err = (&Target{URL: "http://" + addr + "/", Serve: true}).servePort([]string{"true"})
	var ue *badinput.Error
	require.ErrorAs(t, err, &ue, "taken")
	l.Close()
	require.NoError(t, (&Target{URL: "http://" + addr + "/", Serve: true}).servePort([]string{"true"}), "free once closed")
	require.NoError(t, (&Target{URL: "http://127.0.0.1:{port}/", Serve: true}).servePort([]string{"srv", "{port}"}))
}

// A server that died mid-run fails the run with its stderr's last lines
// in the error, as lines (printError indents them), not a footnote.
func TestServerExitedError(t *testing.T) {
	rep := &report.Latency{TargetResult: &report.TargetResult{ServerExited: "exit status 5", ServerStderr: []string{"Traceback:", "  boom"}}}
	err := serverExited([]latency.Row{{Report: &report.Latency{TargetResult: &report.TargetResult{}}}, {Report: rep}})
	require.Error(t, err)
	assert.Equal(t, "the server exited during the run (exit status 5); its stderr ends:\n    Traceback:\n      boom", err.Error())
	assert.NoError(t, serverExited([]latency.Row{{Report: &report.Latency{TargetResult: &report.TargetResult{}}}}))
}

// The mode the run takes: unchanged without --target, a slice for
// --serve's server, the current cgroup (nothing made) for one already
// running; and the request is built as the flags say.
func TestResolveMode(t *testing.T) {
	f := &Target{Method: "GET", Connections: DefaultConnections, Accept: "200-299", MaxFailures: "0"}
	r, err := f.Resolve(gave(), nil, -1, TargetRun{Mode: runner.ModeAuto})
	require.NoError(t, err)
	assert.Nil(t, r.Target)
	assert.Equal(t, runner.ModeAuto, r.Mode)

	f.URL, f.Headers = "http://127.0.0.1:1/", []string{"X-Id: 7"}
	r, err = f.Resolve(gave("target", "header"), nil, -1, TargetRun{Mode: runner.ModeAuto})
	require.NoError(t, err)
	require.NotNil(t, r.Target)
	assert.Equal(t, runner.ModeCurrent, r.Mode)
	assert.Equal(t, "7", http.Header(r.Target.HTTP.Header).Get("X-Id"))

	_, err = f.Resolve(gave("target"), nil, -1, TargetRun{Mode: runner.ModeAuto, Traced: true})
	assert.ErrorContains(t, err, "--trace with --target needs the server's cgroup")

	f.URL, f.Serve, f.ServeReady = "http://127.0.0.1:{port}/", true, 1
	r, err = f.Resolve(gave("target", "serve"), []string{"true", "{port}"}, 0, TargetRun{Mode: runner.ModeAuto})
	require.NoError(t, err)
	assert.Equal(t, runner.ModeCreate, r.Mode)
	assert.Equal(t, []string{"true", "{port}"}, r.Target.Serve)
}

func TestRequestChecks(t *testing.T) {
	for _, tc := range []struct {
		f    Target
		want string
	}{
		{Target{Method: "GE T"}, `invalid --method "GE T": want an HTTP method such as GET or POST`},
		{Target{Method: "GET", Headers: []string{"nocolon"}}, `invalid --header "nocolon": want "Name: value"`},
		{Target{Method: "GET", Body: "/nonexistent/body"}, `invalid --body "/nonexistent/body"`},
	} {
		err := tc.f.request(&runspec.Request{})
		assert.ErrorContains(t, err, tc.want)
	}
}
