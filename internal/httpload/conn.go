package httpload

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"syscall"
	"time"
)

// The HTTP/1.1 path is a connection per worker, the request written by the
// worker itself, from the thread that woke for it, and the response read
// by the same goroutine through net/http's own parser (http.ReadResponse).
// net/http's Transport does the same work in three goroutines per
// connection (the caller's, a writer and a reader), and each hand-off
// between them may wake a thread, which on a VM costs the waker tens of µs
// (an IPI). Against a null Go server in its own process on our 2-vCPU VM,
// at 2,000/s, the Transport's round trip from the send had a p50 of
// 125-150 µs (vegeta's, the Transport too: 124-136), this one's 76-77 µs.

// target is what every request of a run sends, serialised once.
type target struct {
	network, addr string
	tls           *tls.Config // nil for http
	raw           []byte      // the request, as written on the wire
	req           *http.Request
	timeout       time.Duration
	// retry: the request may be sent again, once, on a new connection
	// when a kept-alive one turns out closed before any byte of the
	// response (the server's idle timeout), as net/http's Transport does
	// for idempotent requests.
	retry bool
}

func newTarget(cfg Config) (*target, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("target url %q: %w", cfg.URL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("target url %q: want http://host[:port]/path or https://host[:port]/path", cfg.URL)
	}
	method := cfg.Method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("request %s %s: %w", method, cfg.URL, err)
	}
	req.Header = http.Header(cfg.Header).Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
		req.Header.Del("Host")
	}
	req.ContentLength = int64(len(cfg.Body))
	if len(cfg.Body) > 0 {
		req.Body = io.NopCloser(bytes.NewReader(cfg.Body))
	}
	var raw bytes.Buffer
	if err := req.Write(&raw); err != nil {
		return nil, fmt.Errorf("request %s %s: %w", method, cfg.URL, err)
	}
	req.Body = nil
	t := &target{network: "tcp", addr: u.Host, raw: raw.Bytes(), req: req, timeout: cfg.Timeout}
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		t.addr = net.JoinHostPort(u.Hostname(), port)
	}
	if u.Scheme == "https" {
		t.tls = &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}}
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		t.retry = true
	}
	return t, nil
}

func (t *target) dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, t.network, t.addr)
	if err != nil || t.tls == nil {
		return c, err
	}
	tc := tls.Client(c, t.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return tc, nil
}

// worker sends requests over its own keep-alive connection, one at a time.
type worker struct {
	tgt  *target
	reqs []Request     // the run's, each written by the worker that claimed it
	late time.Duration // the most it woke after an arrival it waited for

	br      *bufio.Reader
	mu      sync.Mutex // guards conn and stopped against interrupt
	conn    net.Conn
	stopped bool
}

// warm opens the worker's connection before the run.
func (w *worker) warm(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, _, _ = w.connect(ctx, time.Time{})
}

// connect returns the worker's connection, opening one when it has none;
// reused says it had one.
func (w *worker) connect(ctx context.Context, deadline time.Time) (c net.Conn, reused bool, err error) {
	if w.conn != nil {
		return w.conn, true, nil
	}
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	c, err = w.tgt.dial(ctx)
	if err != nil {
		return nil, false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		c.Close()
		return nil, false, context.Canceled
	}
	w.conn = c
	if w.br == nil {
		w.br = bufio.NewReaderSize(c, 4096)
	} else {
		w.br.Reset(c)
	}
	return c, false, nil
}

// drop closes the worker's connection: the next request opens another.
func (w *worker) drop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}

// interrupt ends a blocked read or write at once, for good.
func (w *worker) interrupt() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.conn != nil {
		_ = w.conn.SetDeadline(time.Unix(1, 0))
	}
}

func (w *worker) close() { w.drop() }

// holdWrite is the longest request written before the next worker may
// take the dispatcher's lock: one that fits a socket's send buffer at once.
const holdWrite = 16 << 10

// do sends one request from start and reads its whole response; lead
// (held) is unlocked once the request is written, or at the end.
func (w *worker) do(ctx context.Context, start time.Time, lead *sync.Mutex) (uint16, Outcome) {
	locked := true
	unlock := func() {
		if locked {
			locked = false
			lead.Unlock()
		}
	}
	defer unlock()
	var deadline time.Time
	if w.tgt.timeout > 0 {
		deadline = start.Add(w.tgt.timeout)
	}
	for attempt := 0; ; attempt++ {
		if w.conn == nil || len(w.tgt.raw) > holdWrite {
			// A connect, or a write that may wait for the server to
			// read, could hold up the next arrivals of every worker.
			unlock()
		}
		c, reused, err := w.connect(ctx, deadline)
		if err != nil {
			return 0, classify(ctx, err)
		}
		// After the deadline is set, as interrupt's may have come first.
		if err := c.SetDeadline(deadline); err != nil || ctx.Err() != nil {
			w.drop()
			return 0, Cancelled
		}
		var status uint16
		var got bool
		_, err = c.Write(w.tgt.raw)
		unlock()
		if err == nil {
			if status, got, err = w.read(); err == nil {
				return status, Response
			}
		}
		w.drop()
		if reused && !got && attempt == 0 && w.tgt.retry && ctx.Err() == nil && !isTimeout(err) {
			continue // a kept-alive connection the server had closed
		}
		return status, classify(ctx, err)
	}
}

// read reads a whole response and leaves the connection ready for the
// next, or dropped when the server said it closes it. got: some of the
// response came.
func (w *worker) read() (status uint16, got bool, err error) {
	for {
		if _, err := w.br.Peek(1); err != nil {
			return status, got, err
		}
		got = true
		resp, err := http.ReadResponse(w.br, w.tgt.req)
		if err != nil {
			return status, got, err
		}
		status = uint16(min(max(resp.StatusCode, 0), 65535))
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return status, got, err
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue // an interim response: the final one follows
		}
		if resp.Close || resp.StatusCode == http.StatusSwitchingProtocols {
			w.drop()
		}
		return status, got, nil
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// classify names the failure of a request of a run whose context is ctx.
func classify(ctx context.Context, err error) Outcome {
	if ctx.Err() != nil {
		return Cancelled
	}
	if isTimeout(err) {
		return Timeout
	}
	var op *net.OpError
	if errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return ConnError
	}
	return Failed
}
