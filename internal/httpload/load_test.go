package httpload_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/httpload"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// every is n arrivals gap apart from 0.
func every(n int, gap time.Duration) []time.Duration {
	s := make([]time.Duration, n)
	for i := range s {
		s[i] = time.Duration(i) * gap
	}
	return s
}

func run(t *testing.T, cfg httpload.Config, sched []time.Duration) httpload.Result {
	t.Helper()
	res, err := httpload.Run(context.Background(), cfg, sched)
	require.NoError(t, err)
	require.Len(t, res.Requests, len(sched))
	require.Equal(t, len(sched), res.Total(), "every request counted once: %+v", res.Counts)
	return res
}

// A server that stalls one request for 200 ms while requests keep being
// scheduled every ms: on one connection the ones scheduled during the stall
// wait for it, and their response times run from their scheduled arrival,
// so they show the stall. A client that timed from its send (coordinated
// omission) would report them at a few hundred µs and fail here.
func TestOpenLoopCountsTheStall(t *testing.T) {
	const stallAt, stall = 50, 200 * time.Millisecond
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) == stallAt+1 {
			time.Sleep(stall)
		}
	}))
	defer srv.Close()
	sched := every(300, time.Millisecond)
	res := run(t, httpload.Config{Request: runspec.Request{URL: srv.URL, Connections: 1}}, sched)
	require.Equal(t, len(sched), res.OK)
	require.EqualValues(t, len(sched), res.Hist.TotalCount(), "every response in the histogram")

	stalled := res.Requests[stallAt]
	require.GreaterOrEqual(t, stalled.End-stalled.Start, stall)
	for i := stallAt + 1; i < len(sched) && sched[i] < stalled.End; i++ {
		r := res.Requests[i]
		// Its one connection was busy until the stalled request ended:
		// it waited, and the wait is in its time.
		require.GreaterOrEqual(t, r.Start, stalled.End, "request %d sent before the connection was free", i)
		require.GreaterOrEqual(t, r.Latency(), stalled.End-sched[i], "request %d", i)
	}
	// Requests 51..150 were scheduled at least 100 ms before the stall
	// ended: at least 100 response times of 100 ms or more.
	above := res.Hist.TotalCount() - countBelow(res, 100*time.Millisecond)
	assert.GreaterOrEqual(t, above, int64(100), "response times of 100 ms or more")
	assert.GreaterOrEqual(t, time.Duration(res.Hist.Max()), stall-time.Millisecond, "the max is the stall")
}

func countBelow(res httpload.Result, d time.Duration) int64 {
	var n int64
	for _, b := range res.Hist.Distribution() {
		if b.To < int64(d) {
			n += b.Count
		}
	}
	return n
}

func TestTimeoutsCounted(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	const timeout = 50 * time.Millisecond
	res := run(t, httpload.Config{Request: runspec.Request{URL: srv.URL, Connections: 4, Timeout: timeout}}, every(8, 5*time.Millisecond))
	assert.Equal(t, 8, res.Timeouts, "%+v", res.Counts)
	assert.Zero(t, res.Hist.TotalCount(), "no response, nothing in the histogram")
	for i, r := range res.Requests {
		assert.Equal(t, httpload.Timeout, r.Outcome, "request %d", i)
		// From its send: 50 ms, and not much more (a wake-up and a
		// close; here 50.1-50.5 ms).
		assert.GreaterOrEqual(t, r.End-r.Start, timeout, "request %d", i)
		assert.Less(t, r.End-r.Start, timeout+40*time.Millisecond, "request %d", i)
	}
}

func TestHTTPErrorsCounted(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		switch n.Add(1) % 3 {
		case 0:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 1:
			w.WriteHeader(http.StatusNotFound)
		default:
			_, _ = io.WriteString(w, "fine")
		}
	}))
	defer srv.Close()
	res := run(t, httpload.Config{Request: runspec.Request{URL: srv.URL, Connections: 2}}, every(30, time.Millisecond))
	assert.Equal(t, 10, res.OK)
	assert.Equal(t, 10, res.Classes[5])
	assert.Equal(t, 10, res.Classes[4])
	assert.Equal(t, 20, res.HTTPErrors())
	assert.EqualValues(t, 30, res.Hist.TotalCount(), "every response, whatever its status")
	statuses := map[uint16]int{}
	for _, r := range res.Requests {
		statuses[r.Status]++
	}
	assert.Equal(t, map[uint16]int{200: 10, 404: 10, 503: 10}, statuses)
	assert.Equal(t, map[int]int{200: 10, 404: 10, 503: 10}, res.Statuses, "counted by code, for --accept-status")
}

func TestConnectionRefusedCounted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close()) // nothing listens there now
	res := run(t, httpload.Config{Request: runspec.Request{URL: url, Connections: 3}}, every(20, time.Millisecond))
	assert.Equal(t, 20, res.ConnErrors, "%+v", res.Counts)
	assert.Zero(t, res.Warm)
	for _, r := range res.Requests {
		assert.Equal(t, httpload.ConnError, r.Outcome)
	}
}

// A server that closes its connection after each response (Connection:
// close), and one that drops it without answering: the first are served
// on new connections, the second are connection errors.
func TestClosedConnections(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Connection", "close")
	}))
	defer srv.Close()
	res := run(t, httpload.Config{Request: runspec.Request{URL: srv.URL, Connections: 2}}, every(20, time.Millisecond))
	assert.Equal(t, 20, res.OK, "%+v", res.Counts)

	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
	}))
	defer hang.Close()
	res = run(t, httpload.Config{Request: runspec.Request{URL: hang.URL, Connections: 2, Method: http.MethodPost, Body: []byte("x")}}, every(10, time.Millisecond))
	assert.Equal(t, 10, res.ConnErrors, "%+v", res.Counts)
}

// The pool's bound: 200 requests all due at once on 4 connections; the
// server never sees more than 4 at a time, nor more than 4 connections.
func TestPoolBound(t *testing.T) {
	var inFlight, most, conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		inFlight.Add(-1)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	res := run(t, httpload.Config{Request: runspec.Request{URL: srv.URL, Connections: 4}}, make([]time.Duration, 200))
	assert.Equal(t, 200, res.OK)
	assert.Equal(t, 4, res.Warm)
	assert.EqualValues(t, 4, most.Load(), "at most Connections at a time, and all of them used")
	assert.EqualValues(t, 4, conns.Load(), "connections opened")
	// All due at 0: the last waited for 49 turns of 2 ms on its
	// connection, and its time says so.
	assert.GreaterOrEqual(t, time.Duration(res.Hist.Max()), 49*2*time.Millisecond)
}

func TestRequestDelivered(t *testing.T) {
	type seen struct {
		method, path, host, header, body string
		length                           int64
	}
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.RequestURI(), r.Host, r.Header.Get("X-Tb"), string(b), r.ContentLength})
		mu.Unlock()
	}))
	defer srv.Close()
	cfg := httpload.Config{Request: runspec.Request{
		URL:         srv.URL + "/api/v1?x=1",
		Method:      http.MethodPut,
		Header:      http.Header{"X-Tb": {"yes"}, "Host": {"example.test"}},
		Body:        []byte(`{"n": 1}`),
		Connections: 2,
	}}
	res := run(t, cfg, every(5, time.Millisecond))
	assert.Equal(t, 5, res.OK)
	require.Len(t, got, 5)
	for _, s := range got {
		assert.Equal(t, seen{http.MethodPut, "/api/v1?x=1", "example.test", "yes", `{"n": 1}`, 8}, s)
	}

	res = run(t, httpload.Config{Request: runspec.Request{URL: srv.URL, Method: http.MethodHead}}, every(3, time.Millisecond))
	assert.Equal(t, 3, res.OK, "HEAD: a response without a body")

	// A body larger than a request the dispatcher holds its lock for.
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<12)
	mu.Lock()
	got = nil
	mu.Unlock()
	res = run(t, httpload.Config{Request: runspec.Request{URL: srv.URL, Method: http.MethodPost, Body: big, Connections: 2}}, every(4, time.Millisecond))
	assert.Equal(t, 4, res.OK)
	require.Len(t, got, 4)
	for _, s := range got {
		assert.Equal(t, string(big), s.body)
	}
}

func TestBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x/", "http://", "://x"} {
		_, err := httpload.Run(context.Background(), httpload.Config{Request: runspec.Request{URL: u}}, every(1, 0))
		assert.Error(t, err, u)
	}
}

// Cancelling the run ends it at once, requests in flight included; every
// request is still accounted for.
func TestCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	begin := time.Now()
	res, err := httpload.Run(ctx, httpload.Config{Request: runspec.Request{URL: srv.URL, Connections: 2}}, every(100, 10*time.Millisecond))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(begin), time.Second, "ended at once")
	assert.Equal(t, 100, res.Cancelled, "%+v", res.Counts)
	assert.Equal(t, 100, res.Total())
}

// The client's floor against its own null server: every request 200,
// each connection warmed, and none sent before its arrival. How late the
// sends are is BenchmarkVsVegeta's figure ("its Floor", and the metrics
// floor-send-p50-µs and floor-late-1ms): a bound here (fewer than 90 of 300
// sent more than 1 ms after their arrival, a p50 under 2 ms) failed 6 of 8
// runs beside ten busy loops (124-182 late, p50 up to 2.8 ms) and a
// clean-clone CI run beside other builds; quiet, 8-17 were late.
func TestFloor(t *testing.T) {
	res, err := httpload.Floor(context.Background(), httpload.Config{Request: runspec.Request{URL: "http://example.test/path?q", Connections: 8}}, every(300, time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, 300, res.OK)
	assert.Equal(t, 8, res.Warm)
	var wake []time.Duration
	for _, r := range res.Requests {
		wake = append(wake, r.Start-r.Scheduled)
	}
	slices.Sort(wake)
	assert.GreaterOrEqual(t, wake[0], time.Duration(0), "a request sent before its arrival")
	t.Logf("floor at 1,000/s: p50 %v p99 %v, sent %v after the arrival at the median", res.Quantile(50), res.Quantile(99), wake[len(wake)/2])
}
