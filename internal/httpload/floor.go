package httpload

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// NullServer is a trivial HTTP server on 127.0.0.1: every request gets 200
// and an empty body once its own body is read. Against it, a run measures
// the client's floor: the smallest response time it can report on this
// machine at a schedule, its own wake-up and HTTP path plus loopback.
type NullServer struct {
	URL string // http://127.0.0.1:port/
	srv *http.Server
	ln  net.Listener
}

// StartNullServer listens on a free port of 127.0.0.1 and serves.
func StartNullServer() (*NullServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("null server: %w", err)
	}
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }),
		ReadHeaderTimeout: time.Minute,
	}
	go func() { _ = srv.Serve(ln) }() // ends with Close
	return &NullServer{URL: "http://" + ln.Addr().String() + "/", srv: srv, ln: ln}, nil
}

// Close stops the server and its connections.
func (s *NullServer) Close() error {
	if err := s.srv.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("null server: %w", err)
	}
	return nil
}

// Floor runs sched with cfg (its method, headers, body, connections,
// timeout and clock) against a NullServer of its own in this process,
// the path it keeps the request's, and returns that run's result. The
// server shares the process's CPUs with the client, as a target on the
// same machine shares the machine's.
func Floor(ctx context.Context, cfg Config, sched []time.Duration) (Result, error) {
	s, err := StartNullServer()
	if err != nil {
		return Result{}, err
	}
	defer s.Close()
	if u, err := url.Parse(cfg.URL); err == nil {
		// The target's path and query: a request of the same length.
		cfg.URL = strings.TrimSuffix(s.URL, "/") + u.RequestURI()
	} else {
		cfg.URL = s.URL
	}
	res, err := Run(ctx, cfg, sched)
	if err != nil {
		return res, fmt.Errorf("floor: %w", err)
	}
	if n := res.Total() - res.OK; n > 0 {
		return res, fmt.Errorf("floor: %d of %d requests to the null server did not get 200 (%d timeouts, %d connection errors)", n, res.Total(), res.Timeouts, res.ConnErrors)
	}
	return res, nil
}
