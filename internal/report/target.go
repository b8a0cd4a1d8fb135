package report

// TargetConfig is latency --target's request and client, inline in the
// result's config: the URL, the method, the bounded pool of connections,
// the timeout per request (0: none), the body's size, and --serve's
// command as given (absent for a server already running) or the cgroup
// --cgroup named for its counters ("" for none).
type TargetConfig struct {
	Target           string   `json:"target"`
	Method           string   `json:"method"`
	Connections      int      `json:"connections"`
	RequestTimeoutMs float64  `json:"request_timeout_ms"`
	BodyBytes        int      `json:"body_bytes"`
	Serve            []string `json:"serve,omitempty"`
	TargetCgroup     string   `json:"target_cgroup,omitempty"`
	// AcceptStatus and MaxFailures are the rule the run was judged by
	// (--accept-status, --max-failures), as given; absent in results
	// written before it.
	AcceptStatus string `json:"accept_status,omitempty"`
	MaxFailures  string `json:"max_failures,omitempty"`
}

// TargetResult is what latency --target adds to a result: every request
// of the schedule counted by how it ended (none dropped: the histogram
// and the percentiles hold the responses of any status, the rest are
// counted here), and --serve's server if it exited before it was stopped.
type TargetResult struct {
	HTTP HTTPCounts `json:"http"`
	// ServerExited is how --serve's server ended when it exited on its own
	// during the run ("exit status 1", "signal: killed"); "" when it ran
	// until stopped.
	ServerExited string `json:"server_exited,omitempty"`
	// ServerStderr is the end of its stderr then, its last lines (at most
	// 20, each without its newline).
	ServerStderr []string `json:"server_stderr,omitempty"`
}

// HTTPCounts are the requests of the schedule by outcome: Requests =
// Responses + Timeouts + ConnectionErrors + Failed + Cancelled, and
// Responses = the five classes + StatusOther.
type HTTPCounts struct {
	Requests         int `json:"requests"`
	Responses        int `json:"responses"`
	Status1xx        int `json:"status_1xx"`
	Status2xx        int `json:"status_2xx"`
	Status3xx        int `json:"status_3xx"`
	Status4xx        int `json:"status_4xx"`
	Status5xx        int `json:"status_5xx"`
	StatusOther      int `json:"status_other"`
	HTTPErrors       int `json:"http_errors"` // responses other than 2xx
	Timeouts         int `json:"timeouts"`    // --request-timeout passed first
	ConnectionErrors int `json:"connection_errors"`
	Failed           int `json:"failed"`    // a malformed response, a bad request
	Cancelled        int `json:"cancelled"` // not ended: the run was interrupted
	// Statuses counts the responses by status code.
	Statuses map[int]int `json:"statuses,omitempty"`
	// Failures are the requests that failed by the run's rule (timeouts,
	// connection errors, failed, and responses whose status
	// --accept-status leaves out), FailuresAllowed the most --max-failures
	// allowed of Requests; null where the run was not judged.
	Failures        *int `json:"failures,omitempty"`
	FailuresAllowed *int `json:"failures_allowed,omitempty"`
}

// Unanswered are the requests that got no response.
func (c HTTPCounts) Unanswered() int { return c.Timeouts + c.ConnectionErrors + c.Failed + c.Cancelled }
