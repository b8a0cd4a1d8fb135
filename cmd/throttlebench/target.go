package main

import (
	"errors"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/httpload"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/target"
)

// targetFlags are latency --target's: the requests, the client, and
// --serve's server (its command after --).
type targetFlags struct {
	url, method, body          string
	headers                    []string
	connections                int
	requestTimeout, serveReady time.Duration
	serve                      bool
	accept, maxFailures        string
	rule                       build.FailureRule // resolved from accept and maxFailures
}

// defaultConnections: the pool the client's benchmark held 60,000
// requests/s with here (BenchmarkVsVegeta); 32 requests in flight at once
// before an arrival waits for a connection, which a server throttled for a
// whole 100 ms period at 320 requests/s still leaves free. A connection
// costs a goroutine and a socket, opened before the first arrival.
const defaultConnections = 32

func (t *targetFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&t.url, "target", "", "send the requests to this http:// (or https://) URL instead of serving them with the built-in workload (a server already running, or --serve's)")
	f.BoolVar(&t.serve, "serve", false, "with --target: start the server command given after -- inside the slice with the limits, wait until its own socket listens on the target's port (its port must be free: a server already there is refused, never measured), stop it after (SIGTERM, SIGKILL 3s later); a fresh server per configuration. {port} in the command and in --target is a free port picked for each configuration, also given to the server as PORT in its environment")
	f.DurationVar(&t.serveReady, "serve-ready", 10*time.Second, "--serve: how long the server may take to listen on the target's port before the run fails")
	f.IntVar(&t.connections, "connections", defaultConnections, "--target: keep-alive connections, opened before the first arrival; an arrival that finds them all busy waits for one (its wait is in its response time)")
	f.DurationVar(&t.requestTimeout, "request-timeout", 5*time.Second, "--target: give up on a request this long after it was sent, counted as a timeout (0 = never)")
	f.StringVar(&t.method, "method", "GET", "--target: the requests' HTTP method")
	f.StringArrayVar(&t.headers, "header", nil, `--target: a header sent with every request, "Name: value"; repeatable`)
	f.StringVar(&t.body, "body", "", "--target: send this file's contents as every request's body (read once, before anything runs)")
	f.StringVar(&t.accept, "accept-status", build.DefaultAcceptStatus, "--target: the statuses that count as a success: codes, ranges and classes, such as 200-299,404")
	f.StringVar(&t.maxFailures, "max-failures", build.DefaultMaxFailures, "--target: exit 1 when more requests fail than this share of them (0.5%) or count (5): "+
		"timeouts, connection errors and statuses --accept-status leaves out; exit 1 too when none succeeds")
	// run's --cgroup takes a path too here: the help said only its modes.
	if c := f.Lookup("cgroup"); c != nil {
		c.Usage += "; with --target and no --serve: the server's cgroup, read and never written (its directory, its path such as /kubepods.slice/..., or a pid)"
	}
}

// targetOnly are the flags that mean nothing without --target.
var targetOnly = []string{"serve", "serve-ready", "connections", "request-timeout", "method", "header", "body", "accept-status", "max-failures"}

// targetParams are the configuration parameters that apply to requests
// sent to a target: the schedule's; the limits too, with --serve.
var targetParams = []string{"rate", "arrivals", "on", "off", "count", "duration", "seed"}

// resolve checks the target's flags and arguments before anything is
// made, and turns them into the runner's Target; nil without --target.
// It sets run's --cgroup to what the runner understands: a slice for
// --serve, the current cgroup (in which nothing is made) otherwise.
func (t *targetFlags) resolve(cmd *cobra.Command, args []string, run *runFlags, summary bool) (*target.Target, error) {
	changed := cmd.Flags().Changed
	if t.url == "" && !changed("target") {
		for _, name := range targetOnly {
			if changed(name) {
				return nil, config.Usagef(name, "--%s applies only with --target URL", name)
			}
		}
		if len(args) > 0 {
			return nil, config.Usagef("", "unexpected argument %q: latency takes a command only with --target URL --serve -- CMD", args[0])
		}
		return nil, nil
	}
	u, err := t.targetURL()
	if errors.As(err, new(*config.Error)) {
		return nil, err
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, config.Usagef("target", "invalid --target %q: want an http:// or https:// URL with a host, such as http://127.0.0.1:8080/", t.url)
	}
	for _, p := range config.ParamsFor(config.Latency) {
		if changed(p.Name) && !slices.Contains(targetParams, p.Name) && !(p.Limit && t.serve) {
			if p.Limit {
				return nil, config.Usagef(p.Name, "--%s cannot be used with --target without --serve: a server already running is measured in the limits it has, and its cgroup is never written", p.Name)
			}
			return nil, config.Usagef(p.Name, "--%s applies to the built-in workload, not to --target: the server does the work", p.Name)
		}
	}
	if summary {
		return nil, config.Usagef("summary", "--summary applies only with --instances, not with --target")
	}
	tgt := &target.Target{Target: plan.Target{ServeReady: t.serveReady, HTTP: httpload.Config{URL: t.url, Method: t.method, Connections: t.connections, Timeout: t.requestTimeout}}}
	if err := t.request(&tgt.HTTP); err != nil {
		return nil, err
	}
	if t.connections < 1 || t.connections > 10000 {
		return nil, config.Usagef("connections", "invalid --connections %d: want 1 to 10000", t.connections)
	}
	if t.requestTimeout < 0 {
		return nil, config.Usagef("request-timeout", "invalid --request-timeout %v: want 0 (never) or more", t.requestTimeout)
	}
	if err := t.failureRule(); err != nil {
		return nil, err
	}
	if t.serve {
		return tgt, t.serveCommand(cmd, args, run, tgt)
	}
	if len(args) > 0 {
		return nil, config.Usagef("serve", "unexpected argument %q: a server to start goes after --serve --: throttlebench latency --target URL --serve -- CMD [ARGS...]", args[0])
	}
	for _, name := range []string{"serve-ready", "parent", "cgroup-driver"} {
		if changed(name) {
			return nil, config.Usagef(name, "--%s applies with --target only to --serve's server (it creates a slice)", name)
		}
	}
	if err := t.namedCgroup(run, tgt); err != nil {
		return nil, err
	}
	if tgt.Named == "" && (run.trace || run.traceOut != "") {
		return nil, config.Usagef("trace", "--trace with --target needs the server's cgroup: --cgroup PATH (the one it runs in) or --serve")
	}
	run.mode = runner.ModeCurrent // nothing is made
	return tgt, nil
}
