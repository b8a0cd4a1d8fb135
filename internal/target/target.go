package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/childproto"
	"github.com/throttlebench/throttlebench/internal/httpload"
	"github.com/throttlebench/throttlebench/internal/netport"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Target is a plan.Target with the cgroup its server runs in resolved:
// Cgroup in the cpu hierarchy (its counters, the tracer) and Counted where
// its usage is counted (v1's cpuacct); zero without Named.
type Target struct {
	plan.Target
	Cgroup, Counted cgroup.Cgroup
	// KeepGC leaves the client's garbage collector as it is
	// (httpload.Config.KeepGC): for tests that run several clients at once.
	KeepGC bool
}

// load is the client's configuration of t's requests.
func (t *Target) load() httpload.Config {
	return httpload.Config{Request: t.HTTP, KeepGC: t.KeepGC}
}

// ServeGrace is how long a server has after SIGTERM before SIGKILL.
const ServeGrace = childproto.StopGrace

// Server is --serve's server process (childproto.Server).
type Server interface {
	Pid() int
	Go() error
	// Ready waits until ours says the server answers on addr (its own
	// socket listening there), then for addr to accept a connection.
	Ready(ctx context.Context, addr string, timeout time.Duration, ours func() (bool, error)) error
	Exited() (string, bool)
	Stop(grace time.Duration)
	Stderr() string
}

// Guard is a started guard of a --serve slice (childproto.GuardArg).
type Guard interface{ Done() }

// Engine runs latency --target's configurations. Local supplies the
// kernel, the host, the cgroups and the tracer; the fields below are the
// engine's own seams, the real ones when left unset.
type Engine struct {
	Local *runner.Local
	// StartServer starts --serve's server, not yet running; StartGuard the
	// guard of its slice (childproto.StartServer, childproto.StartGuard).
	StartServer func(exe string, argv, env []string) (Server, error)
	StartGuard  func(exe, dir string) (Guard, error)
	// FreePort picks {port}'s port (freePort).
	FreePort func() (int, error)
	// Probe reads the sockets and their holders; SlicePids the processes
	// in a slice (its cgroup.procs): a server's readiness (ownProbe).
	Probe     netport.FS
	SlicePids func(dir string) ([]int, error)
}

func (e Engine) withDefaults() Engine {
	if e.Local == nil {
		e.Local = &runner.Local{}
	}
	if e.StartServer == nil {
		e.StartServer = func(exe string, argv, env []string) (Server, error) {
			s, err := childproto.StartServer(exe, argv, env)
			if err != nil {
				return nil, err
			}
			return s, nil
		}
	}
	if e.StartGuard == nil {
		e.StartGuard = func(exe, dir string) (Guard, error) {
			g, err := childproto.StartGuard(exe, dir)
			if err != nil {
				return nil, err
			}
			return g, nil
		}
	}
	if e.FreePort == nil {
		e.FreePort = freePort
	}
	if e.Probe.Root == "" {
		e.Probe = netport.FS{Root: "/"}
	}
	if e.SlicePids == nil {
		e.SlicePids = slicePids
	}
	return e
}

// run is one configuration's run: the engine with its defaults, the
// Local's core, the target.
type run struct {
	e Engine
	k runner.Local
}

// Run runs one configuration of requests against t: with --serve in a
// slice made for it (runner.InSlice: removed on every path, the server
// stopped before), else against the server already running.
func (e *Engine) Run(ctx context.Context, o runner.Options, t *Target) (*report.Latency, error) {
	if t == nil {
		return nil, errors.New("no target")
	}
	r := run{e: e.withDefaults()}
	r.k = r.e.Local.Prepare()
	if t.Serve == nil {
		started := time.Now()
		var g runner.Group
		var counter func() (time.Duration, error)
		if t.Named != "" {
			g, counter = runner.GroupOf(t.Cgroup), t.Counted.Usage
		}
		floor, err := clientFloor(ctx, o, t)
		if err != nil {
			return nil, err
		}
		return r.window(ctx, o, t, started, g, counter, nil, floor, "named", nil)
	}
	// The server needs its slice: never the current cgroup.
	return runner.InSlice(r.k, ctx, o, func(ctx context.Context, o runner.Options, started time.Time, slice runner.Slice, notes []report.Warning) (*report.Latency, error) {
		return r.served(ctx, o, t, started, slice, notes)
	})
}

func (r run) served(ctx context.Context, o runner.Options, given *Target, started time.Time, slice runner.Slice, notes []report.Warning) (rep *report.Latency, err error) {
	t := given
	var env []string
	if t.UsesPort() {
		port, err := r.e.FreePort()
		if err != nil {
			return nil, err
		}
		p := t.withPort(port)
		t, env = &p, []string{"PORT=" + strconv.Itoa(port)}
	}
	if n := ServerGOMAXPROCS(o); n > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(n))
	}
	addr, err := HostPort(t.HTTP.URL)
	if err != nil {
		return nil, err
	}
	addrs, err := netport.Resolve(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("--target %s: %w", t.HTTP.URL, err)
	}
	// The client's floor first, before the server takes any CPU.
	floor, err := clientFloor(ctx, o, t)
	if err != nil {
		return nil, err
	}
	// The guard first: from here on, something in the slice may outlive
	// a SIGKILLed run but for it.
	guard, err := r.e.StartGuard(o.Exe, slice.Cgroup().Dir)
	if err != nil {
		return nil, err
	}
	defer guard.Done()
	srv, err := r.e.StartServer(o.Exe, t.Serve, env)
	if err != nil {
		return nil, err
	}
	// Stopped before the slice goes (inCgroup's removal runs after this
	// returns), on every path; then whatever it left in the slice.
	defer func() {
		srv.Stop(ServeGrace)
		if n, kerr := slice.KillLeft(0); n > 0 || kerr != nil {
			msg := fmt.Sprintf("the server left %s in its slice after it was stopped: killed, so that the slice could be removed", words.N(n, "process"))
			if kerr != nil {
				msg = fmt.Sprintf("the server left processes in its slice that could not all be killed (%d killed): %v", n, kerr)
			}
			var se *serverError
			switch {
			case rep != nil:
				rep.AddWarning(report.Warning{Kind: report.KindKilled, Text: msg})
			case errors.As(err, &se):
				se.notes = append(se.notes, msg) // before its stderr's lines
			case err != nil:
				err = fmt.Errorf("%w; %s", err, msg)
			}
		}
	}()
	if err := slice.AddProc(srv.Pid()); err != nil {
		return nil, fmt.Errorf("move the server into %s: %w", slice.Cgroup().Dir, err)
	}
	if err := srv.Go(); err != nil {
		return nil, fmt.Errorf("start the server %s: %w", QuoteArgv(t.Serve), err)
	}
	if err := srv.Ready(ctx, addr, t.ServeReady, r.ownProbe(addr, addrs, slice.Cgroup().Dir)); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		_, exited := srv.Exited()
		return nil, &serverError{msg: fmt.Sprintf("the server %s %v", QuoteArgv(t.Serve), err), stderr: srv.Stderr(), exited: exited}
	}
	// The slice's usage counter where it has one (v2, v1 with cpuacct
	// beside cpu), else the server process's own CPU time (its threads,
	// not its children).
	counter := slice.Usage
	if _, err := slice.Usage(); err != nil {
		pid := srv.Pid()
		counter = func() (time.Duration, error) { return r.k.PIDCPU(pid) }
	}
	rep, err = r.window(ctx, o, t, started, slice, counter, srv, floor, "created", notes)
	if rep != nil && rep.Config.TargetConfig != nil {
		// As given: with {port}, rows differ by no port of ours.
		rep.Config.TargetConfig.Target, rep.Config.TargetConfig.Serve = given.HTTP.URL, given.Serve
	}
	return rep, err
}

// clientFloor is the client's own floor: requests of the same method,
// headers, body and path sent on the run's spacing (bench.FloorSchedule)
// to a null server in this process; nil with Open.NoFloor (size's levels).
func clientFloor(ctx context.Context, o runner.Options, t *Target) (*bench.Floor, error) {
	if o.Open.NoFloor {
		return nil, nil
	}
	fsched, kind, gap := bench.FloorSchedule(o.Open)
	fres, err := httpload.Floor(ctx, t.load(), fsched)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the client's floor: %w", err)
	}
	return &bench.Floor{Wakeups: len(fsched), Arrivals: kind, Interval: gap,
		P50: fres.Quantile(50), P99: fres.Quantile(99), P999: fres.Quantile(99.9), Max: time.Duration(fres.Hist.Max()), Took: fres.Elapsed}, nil
}

// window sends the schedule (the client's floor measured before),
// reading g's counters (nil: none) and sampling counter around it in one
// runner.Window, and builds the report.
func (r run) window(ctx context.Context, o runner.Options, t *Target, started time.Time, g runner.Group, counter func() (time.Duration, error),
	srv Server, floor *bench.Floor, mode string, notes []report.Warning) (*report.Latency, error) {
	k := r.k
	sched := runspec.Schedule(o.Open)
	var err error

	var limits cgroup.Limits
	var chain []cgroup.Level
	var cg cgroup.Cgroup
	cpuset := ""
	var tw *tracewindow.Window
	if g != nil {
		cg = g.Cgroup()
		if s, ok := g.(runner.Slice); ok {
			limits, chain, cpuset, err = runner.ReadBackSlice(s)
		} else {
			limits, chain, err = runner.ReadBack(g)
		}
		if err != nil {
			return nil, err
		}
		tw = k.TraceGroup(o, cg.Dir)
		defer tw.Stop()
	}
	// This process's CPU time (the client's) beside the machine's: the
	// busy-machine warning counts the client and the server as ours.
	w := runner.Window{Group: g, Trace: tw, HostCPU: k.HostCPUOf(o), Process: k.ProcessCPU, CPU: counter, Clock: k.SampleClock}
	if g != nil {
		w.Waits = k.WaitsOf(cg, o.Host.Root) // the server's threads (or the --cgroup named)
	}
	res, m, err := runner.RunWindow(ctx, w, func(open func() error) (httpload.Result, error) {
		if err := open(); err != nil {
			return httpload.Result{}, err
		}
		return httpload.Run(ctx, t.load(), sched)
	}, nil)
	if err != nil {
		return nil, err
	}
	bg := m.Background
	if bg.ProcessCPU != nil && m.CPU != nil {
		own := *bg.ProcessCPU + *m.CPU
		bg.ProcessCPU = &own
	}
	open := o.Open
	open.Work, open.Wait, open.Workers, open.Queue = 0, 0, 0, 0
	// The server's GOMAXPROCS, where --serve's was given one (0: its own,
	// which this process cannot see).
	gmp, policy := 0, o.Policy
	if srv != nil {
		gmp = ServerGOMAXPROCS(o)
	}
	if gmp == 0 {
		policy = "runtime"
	}
	rep := build.BuildLatency(build.LatencyInput{
		Open: open, Policy: policy, Mode: mode, Cgroup: runner.ReportGroup(cg), Limits: limits, Chain: chain,
		NumCPU: runtime.NumCPU(), Result: latencyResult(res, floor, gmp), Stat: m.Stat, Host: k.HostInfo(o.Host.Root, started),
		Window: m.Elapsed, CPU: m.CPU, CPUSource: report.SourceCgroup, Peak100: m.Peak, Warnings: notes, Background: bg,
		Cpuset: o.CPUs, CgroupCpuset: cpuset,
	})
	rep.CPUs100ms = m.Intervals
	rep.DispatchLateMs = float64(res.Late) / float64(time.Millisecond)
	rep.Warnings = targetWarnings(rep.Warnings, g != nil, res)
	rep.Config.TargetConfig = &report.TargetConfig{Target: t.HTTP.URL, Method: methodOf(t.HTTP.Method), Connections: t.HTTP.Connections,
		RequestTimeoutMs: float64(t.HTTP.Timeout) / float64(time.Millisecond), BodyBytes: len(t.HTTP.Body), Serve: t.Serve, TargetCgroup: t.Named}
	rep.TargetResult = &report.TargetResult{HTTP: httpCounts(res.Counts)}
	if g == nil {
		rep.Cgroup.Mode = "none"
	}
	if srv != nil {
		if how, exited := srv.Exited(); exited {
			rep.ServerExited = how
			rep.ServerStderr = words.StderrLines(srv.Stderr())
			rep.AddWarning(report.Warn(report.KindServerExited, "the server %s exited during the run (%s; the end of its stderr is in server_stderr); the requests it left unanswered are counted: %d",
				QuoteArgv(t.Serve), how, rep.HTTP.Unanswered()))
		}
	}
	if g != nil {
		tw.Latency(rep, targetSpans(res), throttle.ThreadsServer)
	}
	return rep, nil
}

// latencyResult puts the client's result in the open loop's shape, which
// the report is built from: the responses' response times (of any
// status), from the scheduled arrival; gomaxprocs is the server's.
func latencyResult(res httpload.Result, floor *bench.Floor, gomaxprocs int) bench.LatencyResult {
	out := bench.LatencyResult{Offered: res.Total(), Completed: res.Responses(), Elapsed: res.Elapsed,
		GOMAXPROCS: gomaxprocs, StartMono: res.StartMono, Floor: floor}
	if h := res.Hist; h != nil && h.TotalCount() > 0 {
		out.Mean, out.Min, out.Max = time.Duration(h.Mean()), time.Duration(h.Min()), time.Duration(h.Max())
		out.P50, out.P90, out.P99, out.P999 = res.Quantile(50), res.Quantile(90), res.Quantile(99), res.Quantile(99.9)
		if enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			out.Histogram = string(enc)
		}
	}
	return out
}

// targetWarnings drops what the built-in open loop's warnings say that
// does not apply to a client outside the slice, and says what is missing
// without a cgroup.
func targetWarnings(ws []report.Warning, cgroup bool, res httpload.Result) []report.Warning {
	var out []report.Warning
	for _, w := range ws {
		if !cgroup && w.Kind == report.KindNoPeak {
			continue
		}
		out = append(out, w)
	}
	if !cgroup {
		out = append(out, report.Warning{Kind: report.KindNoCounters, Text: "no cgroup counters: the server's cgroup is not known (give --cgroup PATH, the cgroup it runs in, or start it with --serve); throttling, CPU usage and --trace are not reported"})
	}
	if res.Late > 5*time.Millisecond {
		out = append(out, report.Warn(report.KindLateDispatch, "late sends: a request was sent up to %v after its scheduled arrival (this machine was busy, or every connection was); the response times include the delay, measured from the scheduled arrival",
			res.Late.Round(time.Microsecond)))
	}
	return out
}

func httpCounts(c httpload.Counts) report.HTTPCounts {
	return report.HTTPCounts{Requests: c.Total(), Responses: c.Responses(),
		Status1xx: c.Classes[1], Status2xx: c.Classes[2], Status3xx: c.Classes[3], Status4xx: c.Classes[4], Status5xx: c.Classes[5], StatusOther: c.Classes[0],
		HTTPErrors: c.HTTPErrors(), Timeouts: c.Timeouts, ConnectionErrors: c.ConnErrors, Failed: c.Failed, Cancelled: c.Cancelled, Statuses: c.Statuses}
}

// targetSpans are the requests that got a response, from their
// scheduled arrival to their end, on CLOCK_MONOTONIC.
func targetSpans(res httpload.Result) []throttle.Span {
	spans := make([]throttle.Span, 0, res.Responses())
	for _, r := range res.Requests {
		if r.Outcome == httpload.Response {
			// Served on whichever of its threads the server likes: its
			// threads (all that are traced) as one.
			spans = append(spans, throttle.Span{Start: res.StartMono + int64(r.Scheduled), End: res.StartMono + int64(r.End), CPU: -1,
				Group: throttle.AnyGroup})
		}
	}
	return spans
}

// HostPort is where a URL's server listens, the port its scheme implies
// when it names none.
func HostPort(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

func methodOf(m string) string {
	if m == "" {
		return "GET"
	}
	return m
}

// QuoteArgv is a command line as a user would type it, in backquotes.
func QuoteArgv(a []string) string { return childproto.QuoteArgv(a) }

// ServerGOMAXPROCS is the GOMAXPROCS --serve's server gets in its
// environment, as a command after -- does: --gomaxprocs N, or floor or
// ceil computed from the limit's CPUs on the CPUs it may use; 0 leaves it
// to the server (runtime, and workers, the built-in open loop's default,
// which --target has none of).
func ServerGOMAXPROCS(o runner.Options) int {
	if n, ok := runner.QuotaGOMAXPROCS(o, o.Limits); ok {
		return n
	}
	n, _ := strconv.Atoi(o.Policy) // runtime, workers: 0
	return n
}
