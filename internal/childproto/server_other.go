//go:build !linux

package childproto

import (
	"context"
	"errors"
	"io"
	"time"
)

var errServeLinux = errors.New("--serve runs on Linux only")

// Server is --serve's server; there is none off Linux.
type Server struct{}

func StartServer(string, []string, []string) (*Server, error) { return nil, errServeLinux }

func (*Server) Pid() int  { return 0 }
func (*Server) Go() error { return errServeLinux }
func (*Server) Ready(context.Context, string, time.Duration, func() (bool, error)) error {
	return errServeLinux
}
func (*Server) Exited() (string, bool) { return "", false }
func (*Server) Stop(time.Duration)     {}
func (*Server) Stderr() string         { return "" }
func (*Server) Done() <-chan struct{}  { return nil }

// GuardArg is the hidden argument of the guard of a --serve slice.
const GuardArg = "__guard"

// Guard is the guard's body: there is none off Linux.
func Guard([]string, io.Reader, io.Writer) int { return 2 }

// GuardProcess is a started guard; there is none off Linux.
type GuardProcess struct{}

func StartGuard(string, string) (*GuardProcess, error) { return nil, errServeLinux }

func (*GuardProcess) Done() {}
