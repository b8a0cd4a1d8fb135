package childproto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Type says what a message is.
type Type string

// Parent to child.
const (
	TypeStart   Type = "start"
	TypeGo      Type = "go"
	TypeMeasure Type = "measure"
)

// Child to parent.
const (
	TypeWarm   Type = "warm"
	TypeResult Type = "result"
	TypeError  Type = "error"
)

// An instance's exchange (latency --instances): init and go, then ready
// once its cold start is over; then a reply for every request, in the
// order they finish. The parent closing the instance's input retires it:
// it ends once its requests are done.
const (
	TypeInit    Type = "init"    // parent → instance, in place of start
	TypeReady   Type = "ready"   // instance → parent
	TypeRequest Type = "request" // parent → instance
	TypeReply   Type = "reply"   // instance → parent
)

// Message is one line of the protocol, either way. Config (the closed
// loop) or Open (the open loop) comes with start, Result or Latency with
// result, Kind and Error with error.
type Message struct {
	Type    Type                 `json:"type"`
	Config  *runspec.ClosedLoop  `json:"config,omitempty"`
	Open    *runspec.OpenLoop    `json:"open,omitempty"`
	Result  *bench.Result        `json:"result,omitempty"`
	Latency *bench.LatencyResult `json:"latency,omitempty"`
	Kind    Kind                 `json:"kind,omitempty"`
	Error   string               `json:"error,omitempty"`
	// An instance's: Instance with init, Ready with ready, Request with
	// request, Reply with reply.
	Instance *bench.InstanceInit    `json:"instance,omitempty"`
	Ready    *bench.InstanceReady   `json:"ready,omitempty"`
	Request  *bench.InstanceRequest `json:"request,omitempty"`
	Reply    *bench.InstanceReply   `json:"reply,omitempty"`
}

// Kind is what sort of failure an error message reports.
type Kind string

const (
	KindBadConfig   Kind = "bad_config"
	KindWorkload    Kind = "workload"
	KindInterrupted Kind = "interrupted"
	KindProtocol    Kind = "protocol"
)

// The kinds' sentinels, for errors.Is.
var (
	ErrBadConfig   = errors.New("the workload configuration cannot run")
	ErrWorkload    = errors.New("the workload failed")
	ErrInterrupted = errors.New("the workload was interrupted")
	ErrProtocol    = errors.New("the child protocol was broken")
)

var sentinels = map[Kind]error{
	KindBadConfig:   ErrBadConfig,
	KindWorkload:    ErrWorkload,
	KindInterrupted: ErrInterrupted,
	KindProtocol:    ErrProtocol,
}

// Error is a failure of a kind: one the child reported, or one either side
// found in the exchange itself. Its text is the message alone, as today's
// users read it; the kind is for errors.Is.
type Error struct {
	Kind Kind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Is matches the sentinel of e's kind.
func (e *Error) Is(target error) bool { return target != nil && sentinels[e.Kind] == target }

func errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// kindOf classifies an error of the child's run for the trip across the
// pipe.
func kindOf(err error) Kind {
	for k, s := range sentinels {
		if errors.Is(err, s) {
			return k
		}
	}
	switch {
	case errors.Is(err, decl.ErrBadConfig):
		return KindBadConfig
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return KindInterrupted
	}
	return KindWorkload
}

// decode parses one line and checks that it is a message of one of the
// types allowed here, with its payload.
func decode(line []byte, allowed ...Type) (Message, error) {
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		return Message{}, errorf(KindProtocol, "malformed message %q: %v", clip(line), err)
	}
	if !slices.Contains(allowed, m.Type) {
		return Message{}, errorf(KindProtocol, "unexpected message %q: want type %v", clip(line), allowed)
	}
	var missing bool
	switch m.Type {
	case TypeStart:
		missing = (m.Config == nil) == (m.Open == nil) // one loop or the other
	case TypeResult:
		missing = m.Result == nil && m.Latency == nil
	case TypeError:
		missing = sentinels[m.Kind] == nil
	case TypeInit:
		missing = m.Instance == nil
	case TypeReady:
		missing = m.Ready == nil
	case TypeRequest:
		missing = m.Request == nil
	case TypeReply:
		missing = m.Reply == nil
	}
	if missing {
		return Message{}, errorf(KindProtocol, "incomplete message %q", clip(line))
	}
	return m, nil
}

// clip keeps a quoted message short: a broken line may be a whole result.
func clip(line []byte) []byte {
	const keep = 200
	if len(line) > keep {
		return append(line[:keep:keep], "…"...)
	}
	return line
}
