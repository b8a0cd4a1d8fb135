package runspec

import "time"

// Request is latency --target's requests, as a run is asked to send them:
// what each request is and how many may be in flight. httpload.Config
// carries it with what only the client decides (its clock, the
// collector), so that a plan (internal/plan) names its requests without
// linking the HTTP client.
type Request struct {
	URL    string // http:// or https://
	Method string // "" is GET
	// Header is sent with every request (an http.Header); a Host entry
	// sets the Host.
	Header map[string][]string
	Body   []byte // sent with every request, Content-Length set
	// Connections bounds the keep-alive connections, and so the requests
	// in flight. Fewer than 1 is read as 1.
	Connections int
	// Timeout bounds a request from its send to the end of its response
	// body; 0 is none. Its wait for a connection is not part of it.
	Timeout time.Duration
}
