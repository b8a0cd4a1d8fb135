//go:build linux

package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// The child protocol. The parent starts a copy of its own binary with the
// hidden argument ChildArg, stdin and stdout as pipes:
//
//	parent → child: one line of JSON, the Config
//	parent → child: the line "go", once the child has been moved into the slice
//	child → parent: the line {"warm":true} after the warm-up iterations
//	parent → child: the line "measure", once it has read the counters
//	child → parent: one line of JSON, the Result (or {"error": "..."})
//
// The child waits for "go" so that not one operation runs outside the slice,
// and it re-reads its GOMAXPROCS default only then, because the Go runtime
// computed it from the cgroup the child started in.

// ChildArg is the hidden command line argument that makes the binary a child.
const ChildArg = "__child"

type childReply struct {
	Warm   bool    `json:"warm,omitempty"`
	Result *Result `json:"result,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// Child is a running workload process.
type Child struct {
	cmd     *exec.Cmd
	stdin   io.Writer
	stdout  *bufio.Reader
	waited  chan error
	closers []io.Closer
}

// StartChild starts exe as a child running cfg. It does not run yet: move
// it into its cgroup, then call Go.
//
// The child gets SIGKILL when the parent dies (even by SIGKILL), and its own
// process group so that a Ctrl-C at the terminal reaches only the parent,
// which then ends the child in order and removes the slice.
func StartChild(exe string, cfg Config, stderr io.Writer) (*Child, error) {
	cmd := exec.Command(exe, ChildArg)
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
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
	c := &Child{cmd: cmd, stdin: inW, stdout: bufio.NewReader(outR), waited: make(chan error, 1),
		closers: []io.Closer{inW, outR}}

	// Pdeathsig fires when the *thread* that forked the child exits, not the
	// process; Go may retire idle threads, so the forking goroutine stays
	// locked to its thread until the child has been reaped.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.waited <- cmd.Wait()
	}()
	err = <-started
	// The child holds its own ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start workload process: %w", err)
	}
	if err := json.NewEncoder(inW).Encode(cfg); err != nil {
		c.Kill()
		return nil, fmt.Errorf("send config to workload process: %w", err)
	}
	return c, nil
}

// Pid is the child's process ID.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Go lets the child start its iterations.
func (c *Child) Go() error {
	_, err := io.WriteString(c.stdin, "go\n")
	return c.diedIf(err)
}

// diedIf explains a failed write to the child: a broken pipe means the
// child died (killed before it read its go-ahead), and how it died is the
// news, not the pipe.
func (c *Child) diedIf(err error) error {
	if err == nil {
		return nil
	}
	select {
	case werr := <-c.waited:
		c.waited <- werr
		if werr == nil {
			werr = err
		}
		return fmt.Errorf("workload process died: %w", werr)
	case <-time.After(time.Second):
		return err
	}
}

// Kill ends the child at once, reaps it and closes the pipes.
func (c *Child) Kill() {
	c.cmd.Process.Kill()
	werr := <-c.waited
	c.waited <- werr // keep Kill idempotent
	for _, cl := range c.closers {
		cl.Close()
	}
}

// WaitWarm waits until the child has finished its warm-up; it then idles
// until Measure.
func (c *Child) WaitWarm(ctx context.Context) error {
	r, err := c.receive(ctx)
	if err == nil && !r.Warm {
		err = fmt.Errorf("workload process: unexpected message before warm-up ended")
	}
	return err
}

// Measure lets the child start its measured iterations.
func (c *Child) Measure() error {
	_, err := io.WriteString(c.stdin, "measure\n")
	return c.diedIf(err)
}

// Wait returns the child's result.
func (c *Child) Wait(ctx context.Context) (Result, error) {
	r, err := c.receive(ctx)
	if err == nil && r.Result == nil {
		err = fmt.Errorf("workload process: no result")
	}
	if err != nil {
		return Result{}, err
	}
	return *r.Result, nil
}

// receive reads the child's next message. When ctx ends first, or the child
// dies, the child is killed and reaped and the reason returned.
func (c *Child) receive(ctx context.Context) (childReply, error) {
	type reply struct {
		r   childReply
		err error
	}
	got := make(chan reply, 1)
	go func() {
		var r childReply
		line, err := c.stdout.ReadBytes('\n')
		if err == nil {
			err = json.Unmarshal(line, &r)
		}
		got <- reply{r, err}
	}()
	select {
	case <-ctx.Done():
		c.Kill()
		return childReply{}, ctx.Err()
	case rep := <-got:
		switch {
		case rep.err == nil && rep.r.Error != "":
			c.Kill()
			return childReply{}, errors.New(rep.r.Error)
		case rep.err == nil:
			return rep.r, nil
		}
		// The pipe broke: the child died. Say how.
		werr := <-c.waited
		c.waited <- werr
		if werr == nil {
			werr = rep.err
		}
		return childReply{}, fmt.Errorf("workload process died: %w", werr)
	}
}

// ServeChild is the child's side: read the config, wait for "go", run, reply.
func ServeChild(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	in := bufio.NewReader(stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read config: %w", err)
	}
	var cfg Config
	if err := json.Unmarshal(line, &cfg); err != nil {
		return fmt.Errorf("decode config: %w", err)
	}
	if goLine, err := in.ReadString('\n'); err != nil || goLine != "go\n" {
		return errors.New("the parent closed the control pipe before saying go")
	}
	enc := json.NewEncoder(stdout)
	res, err := Run(ctx, cfg, func() error {
		if err := enc.Encode(childReply{Warm: true}); err != nil {
			return err
		}
		if l, err := in.ReadString('\n'); err != nil || l != "measure\n" {
			return errors.New("the parent closed the control pipe during the warm-up")
		}
		return nil
	})
	var rep childReply
	if err != nil {
		rep.Error = err.Error()
	} else {
		rep.Result = &res
	}
	return enc.Encode(rep)
}
