//go:build linux

package runner

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/childproto"
)

// serverProcess is --serve's server: this binary as childproto's shim,
// started waiting for its go-ahead (so that it can be moved into its
// slice first), then the server command itself. It has its own process
// group (a Ctrl-C reaches only us, who stop it in order) and SIGKILL when
// the thread that started it dies, this process killed included.
type serverProcess struct {
	cmd  *exec.Cmd
	goW  *os.File // the go-ahead; closed once written
	done chan struct{}
	err  error // Wait's, once done is closed
	tail *tailBuffer
}

func startServerProcess(exe string, argv, env []string) (serverHandle, error) {
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
	cmd := exec.Command(exe, append([]string{childproto.ExecArg}, argv...)...)
	cmd.ExtraFiles = []*os.File{goR} // fd 3: childproto.ExecFD
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stderr = errW // a file: Wait does not wait for a daemon holding it
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	s := &serverProcess{cmd: cmd, goW: goW, done: make(chan struct{}), tail: &tailBuffer{max: 4096, eof: make(chan struct{})}}
	// Pdeathsig fires when the thread that forked the child exits: started
	// and reaped on one locked thread.
	err = childproto.StartLocked(cmd, func(err error) {
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

func (s *serverProcess) Pid() int { return s.cmd.Process.Pid }

// Go lets the shim exec the server.
func (s *serverProcess) Go() error {
	_, err := s.goW.Write([]byte{1})
	s.goW.Close()
	return err
}

// Ready waits until ours says the server's own socket listens on addr
// and addr then accepts a TCP connection; or until the server exits, ours
// fails (another process answers there), ctx ends or timeout passes.
// Something else accepting on the port is never readiness: that server
// would be measured instead of ours.
func (s *serverProcess) Ready(ctx context.Context, addr string, timeout time.Duration, ours func() (bool, error)) error {
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

func (s *serverProcess) exitStatus() string {
	if s.err == nil {
		return "exit status 0"
	}
	return s.err.Error()
}

// Exited says how the server ended, if it has.
func (s *serverProcess) Exited() (string, bool) {
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
func (s *serverProcess) Stop(grace time.Duration) {
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
func (s *serverProcess) Stderr() string {
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

// GuardArg is the hidden argument that makes the binary the guard of a
// --serve slice: `exe GuardArg DIR`, started outside the slice in a
// process group of its own, reads its stdin to the end. The run writes
// "done" there once it has stopped the server; an end without it means
// the run died (SIGKILL, which no handler of ours sees): the guard then
// kills whatever is in DIR (the server, and what it forked that the
// server's parent-death signal does not reach), so that the slice is
// empty and `throttlebench cleanup` (or the next run) can remove it.
const GuardArg = "__guard"

// Guard is the guard's body; it returns its exit code.
func Guard(args []string, stdin io.Reader, stderr io.Writer) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	if len(args) != 1 {
		fmt.Fprintln(stderr, "throttlebench guard: want the slice's directory")
		return 2
	}
	b, _ := io.ReadAll(stdin)
	if strings.TrimSpace(string(b)) == "done" {
		return 0
	}
	if _, err := cgroup.KillIn(args[0], 0); err != nil {
		fmt.Fprintf(stderr, "throttlebench guard: %v\n", err)
		return 1
	}
	return 0
}

// guardProcess is a started guard; done tells it the run ended in order.
type guardProcess struct {
	cmd *exec.Cmd
	w   *os.File
}

func startGuardProcess(exe, dir string) (guardHandle, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, GuardArg, dir)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C is ours to handle, not its
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("start the slice's guard: %w", err)
	}
	return &guardProcess{cmd: cmd, w: w}, nil
}

func (g *guardProcess) Done() {
	g.w.Write([]byte("done\n"))
	g.w.Close()
	g.cmd.Wait()
}
