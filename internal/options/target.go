package options

import (
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/target"
)

// Target are latency --target's flags as given.
type Target struct {
	URL, Method, Body          string
	Headers                    []string
	Connections                int
	RequestTimeout, ServeReady time.Duration
	Serve                      bool
	Accept, MaxFailures        string
}

// DefaultConnections: the pool the client's benchmark held 60,000
// requests/s with here (BenchmarkVsVegeta); 32 requests in flight at once
// before an arrival waits for a connection, which a server throttled for a
// whole 100 ms period at 320 requests/s still leaves free. A connection
// costs a goroutine and a socket, opened before the first arrival.
const DefaultConnections = 32

// TargetRun is what of the shared flags the target reads: --cgroup (a mode, or
// with a server already running the cgroup it is in), --cgroup-version,
// and whether it is traced (--trace or --trace-out).
type TargetRun struct {
	Mode, Version string
	Traced        bool
}

// TargetResolved is what the flags resolve to: the runner's Target (nil without
// --target), the rule that judges it, and the cgroup mode the run takes.
type TargetResolved struct {
	Target *target.Target
	Rule   build.FailureRule
	Mode   string
}

// Resolve checks the target's flags and arguments (args: what came after
// --, dash: where -- was, cobra's ArgsLenAtDash) before anything is made.
func (t *Target) Resolve(g Given, args []string, dash int, run TargetRun) (TargetResolved, error) {
	changed := g.Changed
	if t.URL == "" && !changed("target") {
		if err := Refuse(LatencyBuiltIn, g); err != nil {
			return TargetResolved{}, err
		}
		if len(args) > 0 {
			return TargetResolved{}, badinput.Errorf("", "unexpected argument %q: latency takes a command only with --target URL --serve -- CMD", args[0])
		}
		return TargetResolved{Mode: run.Mode}, nil
	}
	u, err := t.targetURL()
	if badinput.Is(err) {
		return TargetResolved{}, err
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return TargetResolved{}, badinput.Errorf("target", "invalid --target %q: want an http:// or https:// URL with a host, such as http://127.0.0.1:8080/", t.URL)
	}
	mode := LatencyTarget
	if t.Serve {
		mode = LatencyServe
	}
	if err := Refuse(mode, g); err != nil {
		return TargetResolved{}, err
	}
	tgt := &target.Target{Target: plan.Target{ServeReady: t.ServeReady, HTTP: runspec.Request{URL: t.URL, Method: t.Method, Connections: t.Connections, Timeout: t.RequestTimeout}}}
	if err := t.request(&tgt.HTTP); err != nil {
		return TargetResolved{}, err
	}
	if t.Connections < 1 || t.Connections > 10000 {
		return TargetResolved{}, badinput.Errorf("connections", "invalid --connections %d: want 1 to 10000", t.Connections)
	}
	if t.RequestTimeout < 0 {
		return TargetResolved{}, badinput.Errorf("request-timeout", "invalid --request-timeout %v: want 0 (never) or more", t.RequestTimeout)
	}
	rule, err := t.failureRule()
	if err != nil {
		return TargetResolved{}, err
	}
	r := TargetResolved{Target: tgt, Rule: rule}
	if t.Serve {
		r.Mode, err = t.serveCommand(args, dash, run.Mode, tgt)
		return r, err
	}
	if len(args) > 0 {
		return TargetResolved{}, badinput.Errorf("serve", "unexpected argument %q: a server to start goes after --serve --: throttlebench latency --target URL --serve -- CMD [ARGS...]", args[0])
	}
	if err := Refuse(LatencyAttached, g); err != nil {
		return TargetResolved{}, err
	}
	if err := namedCgroup(run, tgt); err != nil {
		return TargetResolved{}, err
	}
	if tgt.Named == "" && run.Traced {
		return TargetResolved{}, badinput.Errorf("trace", "--trace with --target needs the server's cgroup: --cgroup PATH (the one it runs in) or --serve")
	}
	r.Mode = runner.ModeCurrent // nothing is made
	return r, nil
}

// failureRule checks --accept-status and --max-failures.
func (t *Target) failureRule() (build.FailureRule, error) {
	accept, err := build.ParseAcceptStatus(t.Accept)
	if err != nil {
		return build.FailureRule{}, badinput.Errorf("accept-status", "invalid --accept-status %q: %v", t.Accept, err)
	}
	pct, share, count, err := build.ParseMaxFailures(t.MaxFailures)
	if err != nil {
		return build.FailureRule{}, badinput.Errorf("max-failures", "invalid --max-failures %q: %v", t.MaxFailures, err)
	}
	return build.FailureRule{Accept: accept, Percent: pct, MaxPercent: share, MaxCount: count, AcceptSpec: t.Accept, MaxSpec: t.MaxFailures}, nil
}
