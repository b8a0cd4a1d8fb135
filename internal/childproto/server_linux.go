//go:build linux

package childproto

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is --serve's server (and sample -- CMD's command): this binary as
// the exec shim (ExecArg), started waiting for its go-ahead (so that it can
// be moved into its slice first), then the server command itself. It has
// its own process group (a Ctrl-C reaches only us, who stop it in order)
// and SIGKILL when the thread that started it dies, this process killed
// included.
type Server struct {
	cmd  *exec.Cmd
	goW  *os.File // the go-ahead; closed once written
	done chan struct{}
	err  error // Wait's, once done is closed
	tail *tailBuffer
}

// StartServer starts argv as a Server, waiting for Go; env is added to
// this process's environment (nil: as it is).
func StartServer(exe string, argv, env []string) (*Server, error) {
	goR, goW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		goR.Close()
		goW.Close()
		return nil, err
	}
	cmd := exec.Command(exe, append([]string{ExecArg}, argv...)...)
	cmd.ExtraFiles = []*os.File{goR} // fd 3: ExecFD
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stderr = errW // a file: Wait does not wait for a daemon holding it
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	s := &Server{cmd: cmd, goW: goW, done: make(chan struct{}), tail: &tailBuffer{max: 4096, eof: make(chan struct{})}}
	// Pdeathsig fires when the thread that forked the child exits: started
	// and reaped on one locked thread.
	err = StartLocked(cmd, func(err error) {
		s.err = err
		close(s.done)
	})
	goR.Close()
	errW.Close()
	if err != nil {
		goW.Close()
		errR.Close()
		return nil, fmt.Errorf("start the server %s: %w", QuoteArgv(argv), err)
	}
	go s.tail.readFrom(errR)
	return s, nil
}

func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Go lets the shim exec the server.
func (s *Server) Go() error {
	_, err := s.goW.Write([]byte{1})
	s.goW.Close()
	return err
}

// Ready waits until ours says the server's own socket listens on addr
// and addr then accepts a TCP connection; or until the server exits, ours
// fails (another process answers there), ctx ends or timeout passes.
// Something else accepting on the port is never readiness: that server
// would be measured instead of ours.
func (s *Server) Ready(ctx context.Context, addr string, timeout time.Duration, ours func() (bool, error)) error {
	deadline := time.After(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	d := net.Dialer{Timeout: 200 * time.Millisecond}
	last := "nothing listens there"
	for {
		ok, err := ours()
		if err != nil {
			return err
		}
		if ok {
			c, err := d.DialContext(ctx, "tcp", addr)
			if err == nil {
				c.Close()
				return nil
			}
			last = err.Error()
		}
		select {
		case <-s.done:
			return fmt.Errorf("exited (%v) before it listened on %s", s.exitStatus(), addr)
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("did not listen on %s within --serve-ready %v (%s)", addr, timeout, last)
		case <-tick.C:
		}
	}
}

func (s *Server) exitStatus() string {
	if s.err == nil {
		return "exit status 0"
	}
	return s.err.Error()
}

// Exited says how the server ended, if it has.
func (s *Server) Exited() (string, bool) {
	select {
	case <-s.done:
		return s.exitStatus(), true
	default:
		return "", false
	}
}

// Stop ends the server's process group: SIGTERM, then SIGKILL after
// grace; it returns once the server is reaped. Harmless once it has
// exited (its group's stragglers still get both signals).
func (s *Server) Stop(grace time.Duration) {
	s.goW.Close() // a shim never let go ends at once
	pgid := s.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(grace):
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	<-s.done
}

// stderrDrain bounds how long Stderr waits, once the server has exited,
// for its stderr's end: a daemon it left may hold the pipe open.
const stderrDrain = time.Second

// Stderr is the end of what the server wrote on its stderr. Once the
// server has exited, that is all it wrote: the reader is waited for until
// the pipe's end (without it, a server that wrote and died at once was
// reported with an empty tail, its words still in the pipe).
func (s *Server) Stderr() string {
	select {
	case <-s.done:
		select {
		case <-s.tail.eof:
		case <-time.After(stderrDrain):
		}
	default:
	}
	return s.tail.String()
}

// tailBuffer keeps the last max bytes written to it; eof is closed once
// readFrom has read to the end.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
	eof chan struct{}
}

func (t *tailBuffer) readFrom(f *os.File) {
	defer close(t.eof)
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		t.mu.Lock()
		t.b = append(t.b, buf[:n]...)
		if len(t.b) > t.max {
			t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
		}
		t.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// Done is closed once the process has exited and been reaped.
func (s *Server) Done() <-chan struct{} { return s.done }
