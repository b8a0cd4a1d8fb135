package target

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/netport"
)

// Readiness is the server's own socket: a listener held by a process of
// the slice, and no other; another's listener fails the run at once,
// named, however well it answers.
func TestJudgeListeners(t *testing.T) {
	t.Parallel()
	sock := func(in uint64) netport.Socket {
		return netport.Socket{Addr: netip.MustParseAddrPort("127.0.0.1:8081"), Inode: in}
	}
	held := map[uint64][]netport.Process{
		2: {{PID: 1234, Name: "python3"}},
		3: {{PID: 50, Name: "server"}}, // in the slice since the slice's fds were read
	}
	inSlice := func(pid int) bool { return pid == 40 || pid == 50 }
	for _, tc := range []struct {
		name  string
		socks []netport.Socket
		ready bool
		err   string
	}{
		{"nothing listens", nil, false, ""},
		{"ours", []netport.Socket{sock(1)}, true, ""},
		{"another's", []netport.Socket{sock(2)}, false, "pid 1234 (python3) listens there"},
		{"ours beside another's (SO_REUSEPORT)", []netport.Socket{sock(1), sock(2)}, false, "pid 1234 (python3)"},
		{"a holder that joined the slice", []netport.Socket{sock(3)}, false, ""},
		{"a holder not found (gone)", []netport.Socket{sock(9)}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := false
			ready, err := judgeListeners("127.0.0.1:8081", tc.socks, map[uint64]bool{1: true}, inSlice,
				func(in ...uint64) map[uint64][]netport.Process { asked = true; return held })
			assert.Equal(t, tc.ready, ready)
			if tc.err == "" {
				assert.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Contains(t, err.Error(), "is not what answers on 127.0.0.1:8081")
			}
			if tc.name == "ours" {
				assert.False(t, asked, "no scan of every process when the slice's own socket is the one")
			}
		})
	}
}

// ownProbe on this machine: a socket of this process's is another's,
// unless this process is the slice's.
func TestOwnProbeReal(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	addr := l.Addr().(*net.TCPAddr).AddrPort()
	dir := t.TempDir()
	procs := filepath.Join(dir, "cgroup.procs")
	ownProbe := run{e: Engine{}.withDefaults()}.ownProbe

	require.NoError(t, os.WriteFile(procs, []byte("1\n"), 0o644))
	ready, err := ownProbe(addr.String(), []netip.AddrPort{addr}, dir)()
	assert.False(t, ready)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pid "+strconv.Itoa(os.Getpid())+" (", "this test's process named")

	require.NoError(t, os.WriteFile(procs, []byte("1\n"+strconv.Itoa(os.Getpid())+"\n"), 0o644))
	ready, err = ownProbe(addr.String(), []netip.AddrPort{addr}, dir)()
	assert.NoError(t, err)
	assert.True(t, ready, "held by a process of the slice")

	l.Close()
	ready, err = ownProbe(addr.String(), []netip.AddrPort{addr}, dir)()
	assert.NoError(t, err)
	assert.False(t, ready, "nothing listens: not yet")
}

// {port}: a free port per configuration, in the URL and the command,
// and PORT in the server's environment; the result keeps them as given.
func TestTargetPortPlaceholder(t *testing.T) {
	t.Parallel()
	w := newWorld(10, 12)
	srv := &fakeServer{w: w}
	o, tgt, addr := targetOptions(t)
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	// The "free" port is the test's server's: the requests reach it.
	e := w.engine(srv)
	e.FreePort = func() (int, error) { return strconv.Atoi(port) }
	tgt.HTTP.URL = "http://127.0.0.1:{port}/"
	tgt.Serve = []string{"my-server", "--listen=:{port}"}
	rep, err := e.Run(context.Background(), o, tgt)
	require.NoError(t, err)
	assert.Contains(t, w.Log(), "server start my-server --listen=:"+port)
	assert.Contains(t, w.Log(), "server ready 127.0.0.1:"+port)
	assert.Equal(t, []string{"PORT=" + port}, srv.env)
	assert.Equal(t, 20, rep.HTTP.Status2xx, "sent to the port picked")
	assert.Equal(t, "http://127.0.0.1:{port}/", rep.Config.Target, "as given")
	assert.Equal(t, []string{"my-server", "--listen=:{port}"}, rep.Config.Serve)
	assert.Equal(t, "http://127.0.0.1:{port}/", tgt.HTTP.URL, "the caller's target untouched")

	// Without the placeholder: no PORT.
	srv.env = []string{"unset"}
	o, tgt, _ = targetOptions(t)
	_, err = e.Run(context.Background(), o, tgt)
	require.NoError(t, err)
	assert.Nil(t, srv.env)
}

// A server that fails before it is ready: its stderr's lines after the
// message, and what the run adds on its way out before them.
func TestServerErrorLines(t *testing.T) {
	t.Parallel()
	e := &serverError{msg: "the server `x` exited (exit status 1) before it listened on 127.0.0.1:1", exited: true,
		stderr: "Traceback (most recent call last):\n  File \"s.py\", line 1\nOSError: [Errno 98] Address already in use\n"}
	e.notes = append(e.notes, "the server left 1 process(es) in its slice")
	assert.Equal(t, "the server `x` exited (exit status 1) before it listened on 127.0.0.1:1; the server left 1 process(es) in its slice; its stderr ends:\n"+
		"    Traceback (most recent call last):\n      File \"s.py\", line 1\n    OSError: [Errno 98] Address already in use", e.Error())
	assert.True(t, strings.HasSuffix((&serverError{msg: "m", exited: true}).Error(), "; its stderr was empty"))
	assert.Equal(t, "m", (&serverError{msg: "m"}).Error(), "still running, nothing written yet")
	var se *serverError
	assert.True(t, errors.As(error(e), &se))
}
