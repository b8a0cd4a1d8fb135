//go:build linux

package integration

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A server not ours is never measured (issue 33): a port another server
// listens on is refused before anything is made, naming its pid; one
// taken after that check, while ours binds nothing, fails the run
// without a request sent to it.
func TestTargetServeTakenPort(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	// The other server: this test's own, listening before throttlebench
	// starts.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var hits atomic.Int64
	hs := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) })}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	addr := l.Addr().String()

	out := filepath.Join(t.TempDir(), "result.json")
	o := tb(t, "latency", "--parent", parent, "--target", "http://"+addr+"/", "--rate", "20", "--duration", "1s", "-o", out, "--serve", "--", "sleep", "314.25")
	assert.Equal(t, 2, o.code, o.stderr)
	assert.Equal(t, 1, strings.Count(o.stderr, "\n"), "one line: %q", o.stderr)
	assert.Contains(t, o.stderr, "--target: "+addr+" is in use by pid "+strconv.Itoa(os.Getpid())+" (")
	assert.Contains(t, o.stderr, "--serve starts its own server there")
	assert.Empty(t, subdirs(t, parent), "no slice made")
	assert.NoFileExists(t, out)
	assert.Zero(t, hits.Load(), "never measured")
	assert.Empty(t, pidsMatching("314.25"), "ours never started")
}

func TestTargetServeForeignListener(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	addr := "127.0.0.1:" + freePort(t)
	fifo := filepath.Join(t.TempDir(), "started")
	require.NoError(t, unix.Mkfifo(fifo, 0o600))
	out := filepath.Join(t.TempDir(), "result.json")
	// Ours says it has started (the flags checked, the port found free),
	// then binds nothing.
	run := startTB(t, "latency", "--parent", parent, "--target", "http://"+addr+"/", "--rate", "20", "--duration", "2s", "-o", out,
		"--serve", "--", "sh", "-c", "echo up > "+shellJoin([]string{fifo})+"; exec sleep 315.25")
	started := make(chan error, 1)
	go func() {
		f, err := os.Open(fifo) // until ours opens it to write
		if err == nil {
			_, err = io.ReadAll(f)
			f.Close()
		}
		started <- err
	}()
	t.Cleanup(func() {
		// A reader still waiting (ours never came) is let go.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	select {
	case err := <-started:
		require.NoError(t, err)
	case <-run.done:
		t.Fatalf("throttlebench ended before its server started: %v: %s", run.err, run.stderr.String())
	}
	// Now another server takes the port and answers every request.
	var hits atomic.Int64
	l, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	hs := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) })}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })

	err = run.wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, run.stderr.String())
	assert.Equal(t, 1, ee.ExitCode(), run.stderr.String())
	assert.Contains(t, run.stderr.String(), "`sh -c")
	assert.Contains(t, run.stderr.String(), "is not what answers on "+addr+": pid "+strconv.Itoa(os.Getpid())+" (")
	assert.Zero(t, hits.Load(), "never measured: no request reached the other server")
	assert.NoFileExists(t, out)
	noServerLeft(t, "315.25")
}

// {port}: a free port per configuration, in the command or as PORT in
// its environment; the result keeps the URL and the command as given.
func TestTargetServePortPlaceholder(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	exe, err := os.Executable()
	require.NoError(t, err)
	for name, argv := range map[string][]string{
		"in the command": goServer(t, "127.0.0.1:{port}", "0s"),
		"as PORT":        {"sh", "-c", `exec env ` + serverEnv + `="127.0.0.1:$PORT 0s" ` + shellJoin([]string{exe, "tb-http-server-port-env"})},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"latency", "--parent", parent, "--target", "http://127.0.0.1:{port}/", "--cpus", "0.5,1",
				"--rate", "50", "--duration", "1s", "--format", "json", "--serve", "--"}, argv...)
			o := tb(t, args...)
			require.Equal(t, 0, o.code, o.stderr)
			var rows []targetResult
			require.NoError(t, json.Unmarshal([]byte(o.stdout), &rows), o.stdout)
			require.Len(t, rows, 2, "a configuration each")
			for _, r := range rows {
				assert.Equal(t, "http://127.0.0.1:{port}/", r.Config.Target)
				assert.Equal(t, argv, r.Config.Serve)
				assert.Greater(t, r.HTTP.Requests, 0)
				assert.Equal(t, r.HTTP.Requests, r.HTTP.Status2xx, "answered by ours on the port picked")
			}
			noServerLeft(t, "tb-http-server-")
		})
	}
}
