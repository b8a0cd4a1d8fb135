package childproto

import "github.com/throttlebench/throttlebench/internal/bench"

// next reads an instance's next message (see Instance.Next).
func (p *Parent) next() (*bench.InstanceReady, *bench.InstanceReply, error) {
	line, err := p.in.ReadBytes('\n')
	if err != nil {
		return nil, nil, p.died(err, true)
	}
	m, err := decode(line, TypeReady, TypeReply, TypeError)
	if err == nil && m.Type == TypeError {
		err = &Error{Kind: m.Kind, Msg: m.Error}
	}
	if err != nil {
		return nil, nil, err
	}
	return m.Ready, m.Reply, nil
}
