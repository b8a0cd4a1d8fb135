//go:build linux

package integration

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tbreport "github.com/throttlebench/throttlebench/internal/report"
)

// failedResult is what these tests read of a failed --target run's file.
type failedResult struct {
	Completed int                 `json:"completed"`
	LatencyMs map[string]*float64 `json:"latency_ms"`
	CI95      *json.RawMessage    `json:"latency_ms_ci95"`
	HTTP      struct {
		Requests         int         `json:"requests"`
		Status2xx        int         `json:"status_2xx"`
		ConnectionErrors int         `json:"connection_errors"`
		Statuses         map[int]int `json:"statuses"`
		Failures         *int        `json:"failures"`
		FailuresAllowed  *int        `json:"failures_allowed"`
	} `json:"http"`
	Warnings warnings `json:"warnings"`
}

// statusServer answers every request with status, in this process, on a
// port of its own; after dieAfter responses (0: never) it dies, as a
// server that dies mid-run: every later request's connection is dropped
// unanswered and the listener closed. Each of the first dieAfter requests
// is answered whole before the server dies (closing it from the handler
// of the last one could cut that response off: a clean-clone CI run in
// the VM counted 4 of 5).
func statusServer(t *testing.T, status int, dieAfter int64) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var n atomic.Int64
	var die sync.Once
	srv := &http.Server{}
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if dieAfter > 0 && n.Add(1) > dieAfter {
			die.Do(func() { ln.Close() }) // no new connection from here on
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		w.WriteHeader(status)
	})
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// A target that fails fails the run: exit 1, one line saying how many
// failed and how, naming --max-failures; the result file still written,
// with the counts; no figure where there was no response (null, not 0)
// and no warning judged from one.
func TestTargetFailureExits1(t *testing.T) {
	for _, c := range []struct {
		name      string
		url       func(t *testing.T) string
		extra     []string
		stderr    string
		responses bool
	}{
		{"nothing listening", func(t *testing.T) string { return "http://127.0.0.1:" + freePort(t) + "/" }, nil,
			"no request succeeded: ", false},
		{"all 404", func(t *testing.T) string { return statusServer(t, 404, 0) }, nil, "responses 404), more than --max-failures 1% allows", true},
		{"all 500", func(t *testing.T) string { return statusServer(t, 500, 0) }, nil, "responses 500), more than --max-failures 1% allows", true},
		{"dies mid-run", func(t *testing.T) string { return statusServer(t, 200, 5) }, nil, "connection errors), more than --max-failures 1% allows", true},
		{"all 500 within a count", func(t *testing.T) string { return statusServer(t, 500, 0) }, []string{"--max-failures", "100000"},
			"no request succeeded: ", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "result.json")
			args := append([]string{"latency", "--target", c.url(t), "--rate", "50", "--duration", "1s", "-o", out}, c.extra...)
			o := tb(t, args...)
			require.Equal(t, 1, o.code, o.stderr)
			lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
			last := lines[len(lines)-1]
			assert.Contains(t, last, "throttlebench: the target failed: ")
			assert.Contains(t, last, c.stderr)
			assert.Contains(t, last, " requests failed (")
			assert.NotContains(t, o.stderr, "warning: failed run:", "said once, by the error; the file keeps the warning")
			b, err := os.ReadFile(out)
			require.NoError(t, err, "the result is written")
			var r failedResult
			require.NoError(t, json.Unmarshal(b, &r), string(b))
			assert.Greater(t, r.HTTP.Requests, 20, "about 50 arrivals")
			require.NotNil(t, r.HTTP.Failures, "counted")
			require.NotNil(t, r.HTTP.FailuresAllowed)
			if c.extra == nil {
				assert.Greater(t, *r.HTTP.Failures, *r.HTTP.FailuresAllowed)
			}
			if !c.responses {
				assert.Equal(t, r.HTTP.Requests, r.HTTP.ConnectionErrors)
				assert.Zero(t, r.Completed)
				for k, v := range r.LatencyMs {
					assert.Nil(t, v, "latency_ms.%s of no response", k)
				}
				assert.Nil(t, r.CI95)
				for _, w := range r.Warnings {
					assert.NotContains(t, []string{tbreport.KindNearFloor, tbreport.KindFewRequests, tbreport.KindFailedRequests}, w.Kind, w.Text)
				}
			}
			if c.name == "dies mid-run" {
				assert.Equal(t, 5, r.HTTP.Status2xx, "answered until it died")
				assert.Greater(t, r.HTTP.ConnectionErrors, 0, "refused after")
			}
		})
	}
	// Accepted, the same 404s pass.
	o := tb(t, "latency", "--target", statusServer(t, 404, 0), "--accept-status", "200-299,404", "--rate", "50", "--duration", "1s")
	assert.Equal(t, 0, o.code, o.stderr)
}
