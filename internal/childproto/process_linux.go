//go:build linux

package childproto

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Process is a running workload child, spoken to through its Parent.
type Process struct {
	*Parent
	cmd     *exec.Cmd
	waited  chan error
	closers []io.Closer
}

// Start starts exe as a child running cfg. It does not run yet: move it
// into its cgroup, then call Go.
//
// The child gets SIGKILL when the parent dies (even by SIGKILL), and its own
// process group so that a Ctrl-C at the terminal reaches only the parent,
// which then ends the child in order and removes the slice.
//
// A command's child (cfg.StatDir set) gets SIGTERM instead: it ends its
// command's process group and what else is in its slice before it goes
// (Serve), which a SIGKILL would leave running, holding the slice.
func Start(exe string, cfg runspec.ClosedLoop, stderr io.Writer) (*Process, error) {
	sig := syscall.SIGKILL
	if cfg.StatDir != "" {
		sig = syscall.SIGTERM
	}
	return startWith(exe, stderr, sig, func(p *Parent) error { return p.Configure(cfg) })
}

// StartOpen is Start for the open loop.
func StartOpen(exe string, o runspec.OpenLoop, stderr io.Writer) (*Process, error) {
	return start(exe, stderr, func(p *Parent) error { return p.ConfigureOpen(o) })
}

func start(exe string, stderr io.Writer, configure func(*Parent) error) (*Process, error) {
	return startWith(exe, stderr, syscall.SIGKILL, configure)
}

func startWith(exe string, stderr io.Writer, deathSig syscall.Signal, configure func(*Parent) error) (*Process, error) {
	cmd := exec.Command(exe, Arg)
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: deathSig, Setpgid: true}
	// Plain pipes, not StdinPipe/StdoutPipe: Wait (which runs as soon as the
	// child exits, see below) closes those, and would race our reading of
	// the child's last message.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	c := &Process{cmd: cmd, waited: make(chan error, 1), closers: []io.Closer{inW, outR}}
	c.Parent = newParent(outR, inW, c.Kill, c.died)

	err = StartLocked(cmd, func(err error) { c.waited <- err })
	// The child holds its own ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start workload process: %w", err)
	}
	if err := configure(c.Parent); err != nil {
		c.Kill()
		return nil, fmt.Errorf("send config to workload process: %w", err)
	}
	return c, nil
}

// Pid is the child's process ID.
func (c *Process) Pid() int { return c.cmd.Process.Pid }

// died explains a broken pipe: the child died (killed before it read its
// go-ahead, say), and how it died is the news, not the pipe. Its stdout
// ends only when it exits, so a failed read waits for the exit; a failed
// write may come first, so it waits a second at most.
func (c *Process) died(err error, reading bool) error {
	var wait <-chan time.Time
	if !reading {
		wait = time.After(time.Second)
	}
	select {
	case werr := <-c.waited:
		c.waited <- werr
		if werr == nil {
			werr = err
		}
		return fmt.Errorf("workload process died: %w", werr)
	case <-wait:
		return err
	}
}

// Kill ends the child at once, reaps it and closes the pipes.
func (c *Process) Kill() {
	c.cmd.Process.Kill()
	werr := <-c.waited
	c.waited <- werr // keep Kill idempotent
	for _, cl := range c.closers {
		cl.Close()
	}
}

// StartLocked starts cmd from a goroutine locked to its OS thread and reaps
// it there, handing Wait's error to reaped. Pdeathsig fires when the
// *thread* that forked the child exits, not the process, and Go may retire
// idle threads: so the forking goroutine stays locked to its thread until
// the child has been reaped (the workload child here, latency --serve's
// server in the runner).
func StartLocked(cmd *exec.Cmd, reaped func(error)) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		reaped(cmd.Wait())
	}()
	return <-started
}
