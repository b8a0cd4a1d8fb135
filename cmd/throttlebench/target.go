package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/report/build"
)

// registerTarget declares latency --target's flags.
func registerTarget(cmd *cobra.Command, t *options.Target) {
	f := cmd.Flags()
	f.StringVar(&t.URL, "target", "", "send the requests to this http:// (or https://) URL instead of serving them with the built-in workload (a server already running, or --serve's)")
	f.BoolVar(&t.Serve, "serve", false, "with --target: start the server command given after -- inside the slice with the limits, wait until its own socket listens on the target's port (its port must be free: a server already there is refused, never measured), stop it after (SIGTERM, SIGKILL 3s later); a fresh server per configuration. {port} in the command and in --target is a free port picked for each configuration, also given to the server as PORT in its environment")
	f.DurationVar(&t.ServeReady, "serve-ready", 10*time.Second, "--serve: how long the server may take to listen on the target's port before the run fails")
	f.IntVar(&t.Connections, "connections", options.DefaultConnections, "--target: keep-alive connections, opened before the first arrival; an arrival that finds them all busy waits for one (its wait is in its response time)")
	f.DurationVar(&t.RequestTimeout, "request-timeout", 5*time.Second, "--target: give up on a request this long after it was sent, counted as a timeout (0 = never)")
	f.StringVar(&t.Method, "method", "GET", "--target: the requests' HTTP method")
	f.StringArrayVar(&t.Headers, "header", nil, `--target: a header sent with every request, "Name: value"; repeatable`)
	f.StringVar(&t.Body, "body", "", "--target: send this file's contents as every request's body (read once, before anything runs)")
	f.StringVar(&t.Accept, "accept-status", build.DefaultAcceptStatus, "--target: the statuses that count as a success: codes, ranges and classes, such as 200-299,404")
	f.StringVar(&t.MaxFailures, "max-failures", build.DefaultMaxFailures, "--target: exit 1 when more requests fail than this share of them (0.5%) or count (5): "+
		"timeouts, connection errors and statuses --accept-status leaves out; exit 1 too when none succeeds")
	// run's --cgroup takes a path too here: the help said only its modes.
	if c := f.Lookup("cgroup"); c != nil {
		c.Usage += "; with --target and no --serve: the server's cgroup, read and never written (its directory, its path such as /kubepods.slice/..., or a pid)"
	}
}
