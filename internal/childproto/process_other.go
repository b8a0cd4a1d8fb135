//go:build !linux

package childproto

import (
	"errors"
	"io"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

var errNotLinux = errors.New("the workload child runs on Linux only")

// Process is a running workload child (Linux only: it relies on the
// parent-death signal).
type Process struct{ *Parent }

func Start(string, runspec.ClosedLoop, io.Writer) (*Process, error)   { return nil, errNotLinux }
func StartOpen(string, runspec.OpenLoop, io.Writer) (*Process, error) { return nil, errNotLinux }
func (c *Process) Pid() int                                           { return 0 }
func (c *Process) Kill()                                              {}

// Instance is a running instance child (Linux only).
type Instance struct{ *Process }

func StartInstance(string, bench.InstanceInit, io.Writer) (*Instance, error) {
	return nil, errNotLinux
}
func (c *Instance) Send(bench.InstanceRequest) error { return errNotLinux }
func (c *Instance) Next() (*bench.InstanceReady, *bench.InstanceReply, error) {
	return nil, nil, errNotLinux
}
func (c *Instance) Retire() {}
