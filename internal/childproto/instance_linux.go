//go:build linux

package childproto

import (
	"io"

	"github.com/throttlebench/throttlebench/internal/bench"
)

// Instance is a running instance child (latency --instances): a Process
// that takes requests and answers each as it finishes. One goroutine reads
// it (Next); one sends to it (Send, Retire).
type Instance struct {
	*Process
}

// StartInstance starts exe as an instance configured by init. It runs
// nothing until Go: move it into its slice first, as Start's child.
func StartInstance(exe string, init bench.InstanceInit, stderr io.Writer) (*Instance, error) {
	p, err := start(exe, stderr, func(p *Parent) error { return p.send(Message{Type: TypeInit, Instance: &init}) })
	if err != nil {
		return nil, err
	}
	return &Instance{p}, nil
}

// Send hands the instance a request.
func (c *Instance) Send(r bench.InstanceRequest) error {
	return c.send(Message{Type: TypeRequest, Request: &r})
}

// Next waits for the instance's next word: that its cold start is over
// (ready) or a reply. An error message, a line it cannot read, or the
// instance's end is an error: how it ended, once its output has closed.
func (c *Instance) Next() (*bench.InstanceReady, *bench.InstanceReply, error) {
	return c.next()
}

// Retire closes the instance's input: it ends once its requests are done,
// and Next then fails with how it ended.
func (c *Instance) Retire() { c.closers[0].Close() }
