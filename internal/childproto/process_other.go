//go:build !linux

package childproto

import (
	"errors"
	"io"

	"github.com/throttlebench/throttlebench/internal/driver"
)

var errNotLinux = errors.New("the workload child runs on Linux only")

// Process is a running workload child (Linux only: it relies on the
// parent-death signal).
type Process struct{ *Parent }

func Start(string, driver.Config, io.Writer) (*Process, error)       { return nil, errNotLinux }
func StartOpen(string, driver.OpenLoop, io.Writer) (*Process, error) { return nil, errNotLinux }
func (c *Process) Pid() int                                          { return 0 }
func (c *Process) Kill()                                             {}

// Instance is a running instance child (Linux only).
type Instance struct{ *Process }

func StartInstance(string, driver.InstanceInit, io.Writer) (*Instance, error) {
	return nil, errNotLinux
}
func (c *Instance) Send(driver.InstanceRequest) error { return errNotLinux }
func (c *Instance) Next() (*driver.InstanceReady, *driver.InstanceReply, error) {
	return nil, nil, errNotLinux
}
func (c *Instance) Retire() {}
