package childproto

import (
	"bufio"
	"context"
	"encoding/json"
	"io"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Parent is the parent's end of the protocol over the child's two streams:
// a process's pipes (Start), or io.Pipes in tests.
type Parent struct {
	enc *json.Encoder
	in  *bufio.Reader
	// kill ends the child at once; a read blocked on its stream then
	// returns. It is called when ctx ends, and when the child reports an
	// error or breaks the protocol: the exchange is over.
	kill func()
	// died explains err, a broken stream: how the child ended, which is
	// the news, not the pipe. reading says the broken stream is the
	// child's output, which ends only when the child does.
	died func(err error, reading bool) error
}

func newParent(fromChild io.Reader, toChild io.Writer, kill func(), died func(err error, reading bool) error) *Parent {
	return &Parent{enc: json.NewEncoder(toChild), in: bufio.NewReader(fromChild), kill: kill, died: died}
}

func (p *Parent) send(m Message) error {
	if err := p.enc.Encode(m); err != nil {
		return p.died(err, false)
	}
	return nil
}

// Configure sends the closed loop's configuration the child will run.
func (p *Parent) Configure(cfg runspec.ClosedLoop) error {
	return p.send(Message{Type: TypeStart, Config: &cfg})
}

// ConfigureOpen sends the open loop's configuration the child will run.
func (p *Parent) ConfigureOpen(o runspec.OpenLoop) error {
	return p.send(Message{Type: TypeStart, Open: &o})
}

// Go lets the child start its iterations.
func (p *Parent) Go() error { return p.send(Message{Type: TypeGo}) }

// WaitWarm waits until the child has finished its warm-up (the open loop:
// its calibration, its workers on their threads); it then idles until
// Measure.
func (p *Parent) WaitWarm(ctx context.Context) error {
	m, err := p.receive(ctx)
	if err == nil && m.Type != TypeWarm {
		err = errorf(KindProtocol, "workload process: unexpected message before warm-up ended")
	}
	return err
}

// Measure lets the child start its measured iterations.
func (p *Parent) Measure() error { return p.send(Message{Type: TypeMeasure}) }

// Wait returns the closed loop's result.
func (p *Parent) Wait(ctx context.Context) (bench.Result, error) {
	m, err := p.result(ctx)
	if err == nil && m.Result == nil {
		err = errorf(KindProtocol, "workload process: no closed-loop result")
	}
	if err != nil {
		return bench.Result{}, err
	}
	return *m.Result, nil
}

// WaitLatency returns the open loop's result.
func (p *Parent) WaitLatency(ctx context.Context) (bench.LatencyResult, error) {
	m, err := p.result(ctx)
	if err == nil && m.Latency == nil {
		err = errorf(KindProtocol, "workload process: no open-loop result")
	}
	if err != nil {
		return bench.LatencyResult{}, err
	}
	return *m.Latency, nil
}

func (p *Parent) result(ctx context.Context) (Message, error) {
	m, err := p.receive(ctx)
	if err == nil && m.Type != TypeResult {
		err = errorf(KindProtocol, "workload process: no result")
	}
	return m, err
}

// receive reads the child's next message. When ctx ends first, the child
// breaks the protocol or reports an error, the child is killed and the
// reason returned; when the stream breaks, how the child died.
func (p *Parent) receive(ctx context.Context) (Message, error) {
	type reply struct {
		line []byte
		err  error
	}
	got := make(chan reply, 1)
	go func() {
		line, err := p.in.ReadBytes('\n')
		got <- reply{line, err}
	}()
	select {
	case <-ctx.Done():
		p.kill()
		return Message{}, ctx.Err()
	case rep := <-got:
		if rep.err != nil {
			return Message{}, p.died(rep.err, true)
		}
		m, err := decode(rep.line, TypeWarm, TypeResult, TypeError)
		if err == nil && m.Type == TypeError {
			err = &Error{Kind: m.Kind, Msg: m.Error}
		}
		if err != nil {
			p.kill()
			return Message{}, err
		}
		return m, nil
	}
}
