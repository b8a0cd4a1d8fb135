//go:build !linux

package bench

import (
	"context"
	"errors"
	"io"
)

// ChildArg is the hidden command line argument that makes the binary a child.
const ChildArg = "__child"

var errNotLinux = errors.New("the workload child runs on Linux only")

// Child is a running workload process (Linux only).
type Child struct{}

func StartChild(string, Config, io.Writer) (*Child, error)   { return nil, errNotLinux }
func (c *Child) Pid() int                                    { return 0 }
func (c *Child) Go() error                                   { return errNotLinux }
func (c *Child) WaitWarm(context.Context) error              { return errNotLinux }
func (c *Child) Measure() error                              { return errNotLinux }
func (c *Child) Wait(context.Context) (Result, error)        { return Result{}, errNotLinux }
func (c *Child) Kill()                                       {}
func ServeChild(context.Context, io.Reader, io.Writer) error { return errNotLinux }
