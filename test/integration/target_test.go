//go:build linux

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/childproto"
	"github.com/throttlebench/throttlebench/internal/target"
)

// targetResult is what these tests read of a latency --target result.
type targetResult struct {
	Config struct {
		Target      string   `json:"target"`
		Connections int      `json:"connections"`
		Serve       []string `json:"serve"`
	} `json:"config"`
	Cgroup struct {
		Mode string `json:"mode"`
	} `json:"cgroup"`
	Completed int `json:"completed"`
	LatencyMs struct {
		P50, P99 float64
	} `json:"latency_ms"`
	FloorMs *struct {
		P50, P99 float64
	} `json:"floor_ms"`
	Throttling struct {
		NrPeriods   *uint64 `json:"nr_periods"`
		NrThrottled *uint64 `json:"nr_throttled"`
	} `json:"throttling"`
	HTTP struct {
		Requests, Responses, ConnectionErrors, Timeouts int
		Status2xx                                       int `json:"status_2xx"`
		ConnErrors                                      int `json:"connection_errors"`
	} `json:"http"`
	ServerExited      string     `json:"server_exited"`
	ServerStderr      []string   `json:"server_stderr"`
	ThrottledRequests *int       `json:"throttled_requests"`
	Breakdown         *breakdown `json:"breakdown"`
	Warnings          warnings   `json:"warnings"`
}

// freePort is a port nothing listens on, for a server of a test's.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// pidsMatching lists the live processes whose command line holds marker
// (throttlebench's own, which holds it too, left out).
func pidsMatching(marker string) []int {
	return pidsWhere("cmdline", func(b []byte) bool {
		return bytes.Contains(b, []byte(marker)) && !bytes.Contains(b, []byte("--target"))
	})
}

// noServerLeft fails the test (killing them) when marker's processes are
// still there a moment after throttlebench has exited.
func noServerLeft(t *testing.T, marker string) {
	t.Helper()
	noProcessLeft(t, "server processes", marker, func() []int { return pidsMatching(marker) })
}

func targetJSON(t *testing.T, o outcome) targetResult {
	t.Helper()
	require.Equal(t, 0, o.code, "throttlebench failed: %s", o.stderr)
	var r targetResult
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r), o.stdout)
	return r
}

// A server nobody here wrote, python3's http.server, started by --serve
// in a slice at a fifth of a CPU: every request answered, counted, the
// client's floor beside it, the slice's counters read, nothing left.
func TestTargetServePythonHTTPServer(t *testing.T) {
	hier := needRoot(t)
	needPython3(t)
	parent := testParent(t, hier)
	port := freePort(t)
	dir := filepath.Join(t.TempDir(), "tb-target-python-"+port)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	url := "http://127.0.0.1:" + port + "/"
	r := targetJSON(t, tb(t, "latency", "--parent", parent, "--target", url, "--cpus", "0.2", "--rate", "50", "--duration", "2s",
		"--format", "json", "--serve", "--", "python3", "-m", "http.server", port, "--bind", "127.0.0.1", "--directory", dir))
	t.Logf("python3 http.server at 0.2 CPU, 50/s: %d of %d 2xx, p50 %.2f ms, p99 %.2f ms, floor p50 %.3f ms; throttled %v of %v periods",
		r.HTTP.Status2xx, r.HTTP.Requests, r.LatencyMs.P50, r.LatencyMs.P99, r.FloorMs.P50, *r.Throttling.NrThrottled, *r.Throttling.NrPeriods)
	assert.Equal(t, url, r.Config.Target)
	assert.Equal(t, "python3", r.Config.Serve[0])
	assert.Equal(t, "created", r.Cgroup.Mode)
	assert.Equal(t, r.HTTP.Requests, r.HTTP.Status2xx, "every request answered with a 2xx")
	assert.Greater(t, r.HTTP.Requests, 50, "about 100 arrivals in 2 s at 50/s")
	assert.Equal(t, r.HTTP.Responses, r.Completed)
	require.NotNil(t, r.FloorMs, "the client's floor")
	assert.Greater(t, r.FloorMs.P50, 0.0)
	require.NotNil(t, r.Throttling.NrPeriods, "the slice's counters")
	assert.Greater(t, *r.Throttling.NrPeriods, uint64(5))
	assert.Empty(t, r.ServerExited)
	noServerLeft(t, dir)
}

// serverEnv makes the test binary an HTTP server instead (TestMain):
// "ADDR WORK [noterm] [notify=PATH]", every request spending WORK of its
// thread's CPU time (CLOCK_THREAD_CPUTIME_ID, so that time spent throttled
// is not counted as work done) before a 200. With notify, PATH is made
// when a second request comes on a connection: the client, which sends a
// request on a kept-alive connection only once it has read the answer
// before, has a 200 in hand. It is the event a test waits for when it
// needs a run whose requests are answered (waitServed), never the clock.
// It was made once the first answer had been flushed, but the client may
// not have read it yet: where the test then killed the server, the
// kernel's reset took the unread answer with it, and a clean-clone CI run
// beside a busy loop counted 0 answers of 309. A Go server built with the
// test, that runs where the tests do (the VM has no Go toolchain, nor
// python3).
const serverEnv = "TB_IT_HTTP_SERVER"

// serveHTTP is that server; it returns only when it cannot serve.
func serveHTTP(spec string) int {
	f := strings.Fields(spec + " 0s")
	addr, w := f[0], f[1]
	if slices.Contains(f, "noterm") {
		signal.Ignore(syscall.SIGTERM) // a server that will not stop
	}
	notify := ""
	for _, field := range f {
		if p, ok := strings.CutPrefix(field, "notify="); ok {
			notify = p
		}
	}
	var served sync.Once
	work, err := time.ParseDuration(w)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	threadCPU := func() time.Duration {
		var ts unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
		return time.Duration(ts.Nano())
	}
	type answered struct{} // a connection's count of requests, in its context
	srv := &http.Server{Addr: addr, ConnContext: func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, answered{}, new(atomic.Int64))
	}}
	srv.Handler = http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		if notify != "" && req.Context().Value(answered{}).(*atomic.Int64).Add(1) == 2 {
			served.Do(func() { os.WriteFile(notify, nil, 0o644) })
		}
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		x, start := uint64(1), threadCPU()
		for threadCPU()-start < work {
			for range 1000 {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
			}
		}
		if x == 0 {
			rw.Write([]byte("0"))
		}
		rw.Write([]byte("ok\n"))
	})
	err = srv.ListenAndServe()
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// goServer is the argv that starts that server on addr (its port the
// marker its processes are found by): the test binary through env(1).
func goServer(t testing.TB, addr, work string) []string {
	exe, err := os.Executable()
	require.NoError(t, err)
	return []string{"env", serverEnv + "=" + addr + " " + work, exe, "tb-http-server-" + addr}
}

// shellJoin quotes argv for sh -c.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// needPython3 skips a test of python3's server where there is none (the
// VM's busybox): the Go server's tests cover the same paths there.
func needPython3(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed here")
	}
}

// A server whose handler burns 5 ms of CPU a request, in bursts of
// arrivals (18/s on average, all in 300 ms of every 1.5 s: 0.45 CPU of
// work while they last): at 0.4 CPU without burst every whole period of
// an on-phase asks 45 ms of its 40 ms quota, wherever the periods fall,
// and requests meet throttles; with 40 ms of burst (the most a 40 ms
// quota allows), saved in the off-phase, fewer do. make test holds that
// direction (issue 32). How many fewer depends on what the server's own
// handling of a request adds to its 5 ms: on a host, nearly nothing, and
// beside a busy loop on every CPU 0 to 14 requests met a throttle with
// burst against 102 to 154 without (ten runs, at 20/s); in the VM under
// TCG, much more, and with burst 98 and 132 of 216 met one against 167
// and 192 without: fewer, not half as many (0.5 was held once). Half a
// CPU or less, not the 1.5 CPUs of this test's first shape (--cpus 1,
// 60/s in 150 ms of 750): beside a busy loop on every CPU the server
// could not get the CPU it was limited to, and no request met a throttle
// (make test-stress). The p99s are logged, not compared: a neighbour's
// burst moves a p99 by more than the quota does.
func TestTargetServeBurstAB(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	port := freePort(t)
	url := "http://127.0.0.1:" + port + "/"
	srv := goServer(t, "127.0.0.1:"+port, "5ms")
	o := tb(t, "latency", "--parent", parent, "--target", url, "--cpus", "0.4", "--burst", "0,40ms", "--trace",
		"--rate", "18", "--arrivals", "onoff", "--on", "300ms", "--off", "1200ms", "--duration", "12s",
		"--format", "json", "--serve", "--", srv[0], srv[1], srv[2], srv[3])
	require.Equal(t, 0, o.code, o.stderr)
	var rows []targetResult
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &rows), o.stdout)
	require.Len(t, rows, 2)
	without, with := rows[0], rows[1]
	for i, r := range rows {
		require.NotNil(t, r.ThrottledRequests, "traced: %v", r.Warnings)
		t.Logf("burst %s: p50 %.2f ms, p99 %.2f ms, throttled %d/%d periods, %d of %d requests met a throttle",
			[]string{"0", "40ms"}[i], r.LatencyMs.P50, r.LatencyMs.P99, *r.Throttling.NrThrottled, *r.Throttling.NrPeriods, *r.ThrottledRequests, r.HTTP.Responses)
		assert.Equal(t, r.HTTP.Requests, r.HTTP.Status2xx)
		// Each request split over the server's threads, as one.
		if b := r.Breakdown; assert.NotNil(t, b, "warnings %q", r.Warnings) {
			assert.Equal(t, "server", b.Threads)
			assert.Equal(t, r.HTTP.Responses, b.Count)
			assert.Zero(t, b.Unknown)
			assert.InDelta(t, 1, b.P99Share.OnCPU+b.P99Share.Held+b.P99Share.Waiting+b.P99Share.OffCPU, 1e-6)
		}
	}
	assert.Greater(t, *without.ThrottledRequests, 0, "without burst, requests met throttles")
	if b := without.Breakdown; b != nil {
		assert.Positive(t, b.HeldMs.P99, "without burst, requests held by the quota")
	}
	assert.Less(t, *with.ThrottledRequests, *without.ThrottledRequests, "fewer with 40 ms of burst")
	noServerLeft(t, srv[3])
}

// Faults: a server that never listens, one that dies before it does, one
// that exits in the middle, one that ignores SIGTERM, SIGINT, SIGTERM and
// SIGKILL (then cleanup) mid-run, --timeout: each leaves no slice
// (testParent checks) and no server process. Each subtest has a port of
// its own, waits for events (the server's first answer, the guard's end),
// never for the clock, and stops in its cleanup whatever it started, so
// that one that fails leaves nothing running for the next.
func TestTargetServeFaults(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	serve := func(url string, extra []string, argv ...string) []string {
		args := []string{"latency", "--parent", parent, "--target", url, "--format", "json"}
		return append(append(append(args, extra...), "--serve", "--"), argv...)
	}

	t.Run("never ready", func(t *testing.T) {
		srv := newTestServer(t, "0s")
		out := filepath.Join(t.TempDir(), "result.json")
		start := time.Now()
		o := tb(t, serve(srv.url, []string{"--serve-ready", "1s", "-o", out}, "sleep", "311.25")...)
		assert.Equal(t, 1, o.code, o.stderr)
		assert.Contains(t, o.stderr, "`sleep 311.25` did not listen on "+srv.addr+" within --serve-ready 1s")
		// Order of magnitude: 1 s of readiness, then the stop.
		assert.Less(t, time.Since(start), 30*time.Second)
		assert.NoFileExists(t, out)
		noServerLeft(t, "311.25")
	})
	t.Run("dies before ready", func(t *testing.T) {
		srv := newTestServer(t, "0s")
		out := filepath.Join(t.TempDir(), "result.json")
		o := tb(t, serve(srv.url, []string{"-o", out}, "sh", "-c", "echo 'Traceback (most recent call last):' >&2; echo '  File \"s.py\"' >&2; echo cannot bind 312.25 >&2; exit 3")...)
		assert.Equal(t, 1, o.code, o.stderr)
		// Its own stderr's lines, indented, in the error (issue 33).
		assert.Contains(t, o.stderr, "exited (exit status 3) before it listened on "+srv.addr+"; its stderr ends:\n"+
			"    Traceback (most recent call last):\n      File \"s.py\"\n    cannot bind 312.25\n")
		assert.NotContains(t, o.stderr, `\n`)
		assert.NoFileExists(t, out)
	})
	t.Run("not found", func(t *testing.T) {
		srv := newTestServer(t, "0s")
		o := tb(t, serve(srv.url, nil, "no-such-server-here")...)
		assert.Equal(t, 2, o.code, o.stderr)
		assert.Contains(t, o.stderr, `invalid --serve command "no-such-server-here"`)
	})
	t.Run("exits in the middle", func(t *testing.T) {
		srv := newTestServer(t, "0s")
		out := filepath.Join(t.TempDir(), "result.json")
		// The shell ends the server once the client has an answer in
		// hand (its notify file), with most of the 3 s of arrivals
		// still to come.
		script := shellJoin(srv.argv) + ` & while [ ! -e ` + shellJoin([]string{srv.notify}) + ` ]; do sleep 0.01; done; kill $!; echo bye >&2; exit 5`
		o := tb(t, serve(srv.url, []string{"--rate", "100", "--duration", "3s", "-o", out}, "sh", "-c", script)...)
		assert.Equal(t, 1, o.code, o.stderr)
		assert.Contains(t, o.stderr, "the server exited during the run (exit status 5); its stderr ends:\n    bye\n", "its stderr's lines in the error (issue 33)")
		b, err := os.ReadFile(out)
		require.NoError(t, err, "the result is written")
		var r targetResult
		require.NoError(t, json.Unmarshal(b, &r))
		t.Logf("exited in the middle: %d requests, %d 2xx, %d connection errors, %d timeouts", r.HTTP.Requests, r.HTTP.Status2xx, r.HTTP.ConnErrors, r.HTTP.Timeouts)
		assert.Equal(t, "exit status 5", r.ServerExited)
		assert.Equal(t, []string{"bye"}, r.ServerStderr)
		assert.Greater(t, r.HTTP.Status2xx, 0, "answered before it went")
		assert.Greater(t, r.HTTP.ConnErrors, 0, "refused after")
		assert.Equal(t, r.HTTP.Requests, r.HTTP.Status2xx+r.HTTP.ConnErrors+r.HTTP.Timeouts, "every request counted")
		assert.Contains(t, r.Warnings.text(), "failed run: ", "more than --max-failures allows: the run fails (issue 33)")
		noServerLeft(t, srv.marker)
	})
	t.Run("timeout", func(t *testing.T) {
		srv := newTestServer(t, "0s")
		out := filepath.Join(t.TempDir(), "result.json")
		start := time.Now()
		o := tb(t, serve(srv.url, []string{"--rate", "20", "--duration", "60s", "--timeout", "3s", "-o", out}, srv.argv...)...)
		assert.Equal(t, 1, o.code, o.stderr)
		assert.Contains(t, o.stderr, "--timeout 3s")
		// Order of magnitude: the 60 s run ends at its 3 s timeout.
		assert.Less(t, time.Since(start), 30*time.Second)
		assert.NoFileExists(t, out)
		noServerLeft(t, srv.marker)
	})
	t.Run("ignores SIGTERM", func(t *testing.T) {
		srv := newTestServer(t, "0s noterm")
		start := time.Now()
		// The server ignores SIGTERM, and is killed ServeGrace (3 s)
		// after it: never before (a lower bound no load can break).
		o := tb(t, serve(srv.url, []string{"--rate", "20", "--duration", "60s", "--timeout", "2s"}, srv.argv...)...)
		took := time.Since(start)
		assert.Equal(t, 1, o.code, o.stderr)
		assert.Greater(t, took, 2*time.Second+target.ServeGrace, "SIGKILL only after the grace period")
		assert.Less(t, took, 30*time.Second, "order of magnitude: the timeout and the grace, not the 60 s run")
		noServerLeft(t, srv.marker)
	})
	// SIGKILL: no handler of ours runs. The server is a shell whose child
	// serves, out of reach of the shell's parent-death signal: the slice's
	// guard kills it, and cleanup removes the slice.
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			srv := newTestServer(t, "0s")
			out := filepath.Join(t.TempDir(), "result.json")
			argv := srv.argv
			if sig == syscall.SIGKILL {
				argv = []string{"sh", "-c", shellJoin(srv.argv) + " & wait"}
			}
			run := startTB(t, serve(srv.url, []string{"--rate", "20", "--duration", "60s", "-o", out}, argv...)...)
			srv.waitServed(t, run)
			guards := guardsOf(parent)
			require.NoError(t, run.cmd.Process.Signal(sig))
			err := run.wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			if sig == syscall.SIGKILL {
				// The guard's end is the event: it has emptied the slice.
				require.NotEmpty(t, guards, "a --serve run has its slice's guard")
				for _, g := range guards {
					waitGone(t, g, "the slice's guard")
				}
				assert.Empty(t, pidsMatching(srv.marker), "the guard killed the server")
				o := tb(t, "cleanup", "--parent", parent)
				assert.Equal(t, 0, o.code, o.stderr)
			} else {
				assert.Equal(t, 128+int(sig), ee.ExitCode(), run.stderr.String())
				assert.Contains(t, run.stderr.String(), "nothing left behind")
			}
			assert.NoFileExists(t, out)
			noServerLeft(t, srv.marker)
		})
	}
}

// testServer is goServer's server on a port of its own, for one (sub)test.
type testServer struct {
	addr, url string
	marker    string // in its command line: pidsMatching finds it
	notify    string // made once it has answered a request
	argv      []string
}

// newTestServer is the argv of a test server with work (and goServer's
// options) on a fresh port; the test's cleanup kills, by PID, whatever of
// it is still running, so that a failed subtest leaves nothing for the
// next.
func newTestServer(t *testing.T, work string) testServer {
	t.Helper()
	addr := "127.0.0.1:" + freePort(t)
	notify := filepath.Join(t.TempDir(), "served")
	argv := goServer(t, addr, work+" notify="+notify)
	s := testServer{addr: addr, url: "http://" + addr + "/", marker: argv[3], notify: notify, argv: argv}
	t.Cleanup(func() {
		for _, pid := range pidsMatching(s.marker) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return s
}

// waitServed waits until the server has answered a request of run's:
// requests are going. It fails the test when run exits first, or after a
// minute (a deadline for a hang, not a bound on how long it takes).
func (s testServer) waitServed(t *testing.T, run *tbProcess) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(s.notify); err == nil {
			return
		}
		if run.exited() {
			t.Fatalf("throttlebench exited before its server answered: %s", run.stderr.String())
		}
		if time.Now().After(deadline) {
			// Its stderr is read once it has ended: exec's copy writes
			// to the buffer until then.
			run.cmd.Process.Kill()
			<-run.done
			t.Fatalf("the server answered no request within a minute: %s", run.stderr.String())
		}
	}
}

// tbProcess is a throttlebench started in the background.
type tbProcess struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

// startTB starts the binary; the test's cleanup SIGKILLs it (by its PID,
// through os's pidfd) if it is still running, and reaps it.
func startTB(t *testing.T, args ...string) *tbProcess {
	t.Helper()
	p := &tbProcess{cmd: exec.Command(binary, jsonByDefault(args)...), done: make(chan struct{})}
	p.cmd.Stderr = &p.stderr
	require.NoError(t, p.cmd.Start())
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		if !p.exited() {
			p.cmd.Process.Kill()
		}
		<-p.done
	})
	return p
}

func (p *tbProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits for the process to end and returns Wait's error.
func (p *tbProcess) wait() error {
	<-p.done
	return p.err
}

// guardsOf lists the guards (childproto.GuardArg) of --serve slices under
// parent.
func guardsOf(parent string) []int {
	return pidsWhere("cmdline", func(b []byte) bool {
		return bytes.Contains(b, []byte("\x00"+childproto.GuardArg+"\x00"+parent+"/"))
	})
}

// A server already running in a cgroup of its own (as a container's):
// --cgroup names it, and throttlebench reads its counters and traces it,
// but never writes it (its files are as they were); without --cgroup the
// result says it has no counters rather than show zeros. Measured here:
// 2 ms a request at 60/s (Poisson) in 0.2 CPU, 14 of 30 periods
// throttled, 38 requests met a throttle, p50 2.65 ms, p99 53.3 ms.
func TestTargetRunningServerNamedCgroup(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	cg := filepath.Join(parent, "server")
	require.NoError(t, os.Mkdir(cg, 0o755))
	dirs := []string{cg}
	if hier.Version == 1 && hier.Acct != "" && hier.Acct != hier.MountPoint {
		// v1 counts usage in cpuacct, mounted apart here: its twin.
		rel, err := filepath.Rel(hier.MountPoint, cg)
		require.NoError(t, err)
		twin := filepath.Join(hier.Acct, rel)
		// Every directory MkdirAll makes goes again, deepest first: the
		// test parent's twin and, where no run made it, the default
		// parent's (cpuacct/throttlebench was left here after each run).
		var made []string
		for d := twin; d != hier.Acct; d = filepath.Dir(d) {
			if _, err := os.Stat(d); err == nil {
				break
			}
			made = append(made, d)
		}
		require.NoError(t, os.MkdirAll(twin, 0o755))
		dirs = append(dirs, twin)
		t.Cleanup(func() {
			for _, d := range made {
				os.Remove(d)
			}
		})
	}
	quotaFile, quota := filepath.Join(cg, "cpu.cfs_quota_us"), "20000"
	if hier.Version == 2 {
		quotaFile, quota = filepath.Join(cg, "cpu.max"), "20000 100000"
	}
	require.NoError(t, os.WriteFile(quotaFile, []byte(quota), 0o644))
	before, err := os.ReadFile(quotaFile)
	require.NoError(t, err)

	port := freePort(t)
	argv := goServer(t, "127.0.0.1:"+port, "2ms")
	srv := exec.Command(argv[0], argv[1:]...)
	require.NoError(t, srv.Start())
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
		killCgroup(cg)
		os.Remove(cg) // ours, not a slice of throttlebench's
	})
	for _, d := range dirs {
		require.NoError(t, os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(srv.Process.Pid)), 0o644))
	}
	url := "http://127.0.0.1:" + port + "/"
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}

	// No request timeout: what is checked is the named cgroup's counters
	// and trace, and in the v2 guest, emulated on a host loaded 12 deep by
	// other builds, the client stalled up to 6.6 s and 4 of 184 requests
	// timed out at the default 5 s (a clean-clone CI run).
	r := targetJSON(t, tb(t, "latency", "--target", url, "--cgroup", cg, "--trace", "--rate", "60", "--duration", "3s", "--request-timeout", "0", "--format", "json"))
	t.Logf("running server at 0.2 CPU, 2 ms a request, 60/s: p50 %.2f ms, p99 %.2f ms; throttled %v of %v periods; %v requests met a throttle",
		r.LatencyMs.P50, r.LatencyMs.P99, *r.Throttling.NrThrottled, *r.Throttling.NrPeriods, *r.ThrottledRequests)
	assert.Equal(t, r.HTTP.Requests, r.HTTP.Status2xx)
	require.NotNil(t, r.Throttling.NrThrottled, "its counters read")
	assert.Greater(t, *r.Throttling.NrThrottled, uint64(0), "0.12 CPU of work in Poisson bursts at 0.2 CPU: throttled")
	require.NotNil(t, r.ThrottledRequests, "traced: %v", r.Warnings)
	after, err := os.ReadFile(quotaFile)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "its limits as they were")
	assert.Equal(t, []int{srv.Process.Pid}, procsIn(cg), "nothing moved in or out")

	none := targetJSON(t, tb(t, "latency", "--target", url, "--rate", "50", "--duration", "1s", "--format", "json"))
	assert.Nil(t, none.Throttling.NrPeriods, "no counters: null, not 0")
	assert.Equal(t, "none", none.Cgroup.Mode)
	assert.Contains(t, none.Warnings.text(), "no cgroup counters")
}
