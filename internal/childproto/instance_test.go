package childproto

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench"
)

func startInstance(t *testing.T, init bench.InstanceInit) *session {
	t.Helper()
	s := newSession(t, serve(context.Background()))
	require.NoError(t, s.parent.send(Message{Type: TypeInit, Instance: &init}))
	require.NoError(t, s.parent.Go())
	return s
}

// An instance's whole exchange: its cold start, requests answered with
// their own ids and stamps on the monotonic clock, and the end when the
// parent closes its input.
func TestInstanceExchange(t *testing.T) {
	before := bench.Monotonic()
	s := startInstance(t, bench.InstanceInit{Init: 2 * time.Millisecond, InitMemory: 1 << 20, Concurrency: 4, GOMAXPROCS: 2})
	ready, reply, err := s.parent.next()
	require.NoError(t, err)
	require.NotNil(t, ready)
	assert.Nil(t, reply)
	assert.GreaterOrEqual(t, ready.Start, before)
	assert.GreaterOrEqual(t, ready.End-ready.Start, int64(2*time.Millisecond), "the cold start's work")
	assert.GreaterOrEqual(t, ready.CPU, 2*time.Millisecond)
	assert.Equal(t, 2, ready.GOMAXPROCS)

	for id := range 3 {
		require.NoError(t, s.parent.send(Message{Type: TypeRequest, Request: &bench.InstanceRequest{ID: id, Work: time.Millisecond, Wait: 20 * time.Millisecond}}))
	}
	seen := map[int]bool{}
	for range 3 {
		_, rep, err := s.parent.next()
		require.NoError(t, err)
		require.NotNil(t, rep)
		seen[rep.ID] = true
		assert.GreaterOrEqual(t, rep.Start, ready.End)
		assert.GreaterOrEqual(t, time.Duration(rep.End-rep.Start), 21*time.Millisecond, "work and wait")
		assert.GreaterOrEqual(t, rep.CPU, time.Millisecond)
		assert.Less(t, rep.CPU, 20*time.Millisecond, "the wait is no CPU")
	}
	assert.Equal(t, map[int]bool{0: true, 1: true, 2: true}, seen)
	s.toChild.Close()
	assert.NoError(t, s.end(t), "retired")
}

// One slot: the second request waits inside the instance for the first.
func TestInstanceConcurrencyLimit(t *testing.T) {
	s := startInstance(t, bench.InstanceInit{Concurrency: 1})
	_, _, err := s.parent.next()
	require.NoError(t, err)
	for id := range 2 {
		require.NoError(t, s.parent.send(Message{Type: TypeRequest, Request: &bench.InstanceRequest{ID: id, Wait: 30 * time.Millisecond}}))
	}
	_, a, err := s.parent.next()
	require.NoError(t, err)
	_, b, err := s.parent.next()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, b.Start, a.End, "served one after the other")
	// Retired with a request in flight: it is answered first.
	require.NoError(t, s.parent.send(Message{Type: TypeRequest, Request: &bench.InstanceRequest{ID: 9, Wait: 20 * time.Millisecond}}))
	s.toChild.Close()
	_, c, err := s.parent.next()
	require.NoError(t, err)
	assert.Equal(t, 9, c.ID)
	assert.NoError(t, s.end(t))
	_, _, err = s.parent.next()
	assert.ErrorIs(t, err, io.EOF, "then it ends")
}

// A line that is no request is answered with a protocol error; an init
// it cannot run with a bad config, before ready.
func TestInstanceRefusesBadInput(t *testing.T) {
	s := startInstance(t, bench.InstanceInit{Concurrency: 1})
	_, _, err := s.parent.next()
	require.NoError(t, err)
	_, err = io.WriteString(s.toChild, `{"type":"request"}`+"\n")
	require.NoError(t, err)
	_, _, err = s.parent.next()
	assert.ErrorIs(t, err, ErrProtocol)
	assert.ErrorContains(t, err, "incomplete message")

	s = startInstance(t, bench.InstanceInit{InitMemory: 2 << 30})
	_, _, err = s.parent.next()
	assert.ErrorIs(t, err, ErrBadConfig)
	assert.ErrorContains(t, err, "init memory 2147483648 bytes outside 0–1073741824")
	assert.NoError(t, s.end(t))
}
