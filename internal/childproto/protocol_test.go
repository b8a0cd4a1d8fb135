package childproto

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// session joins a Parent to a child over io.Pipes, in memory: the child is
// Serve itself (serve) or a test's own goroutine (fake).
type session struct {
	parent   *Parent
	toChild  *io.PipeWriter // the parent's end of the child's stdin
	killed   atomic.Bool
	childEnd chan error // what the child returned, once it has
}

func newSession(t *testing.T, child func(stdin io.Reader, stdout io.Writer) error) *session {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	s := &session{toChild: stdinW, childEnd: make(chan error, 1)}
	go func() {
		err := child(stdinR, stdoutW)
		// An exiting process's pipes close with it.
		stdinR.Close()
		stdoutW.Close()
		s.childEnd <- err
	}()
	s.parent = newParent(stdoutR, stdinW, func() {
		s.killed.Store(true)
		stdinW.Close()
		stdoutR.Close()
	}, func(err error, _ bool) error { return fmt.Errorf("child ended: %w", err) })
	t.Cleanup(func() { stdinW.Close(); stdoutR.Close() })
	return s
}

func serve(ctx context.Context) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error { return Serve(ctx, in, out) }
}

// end is what the child returned; it must return.
func (s *session) end(t *testing.T) error {
	select {
	case err := <-s.childEnd:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not return")
		return nil
	}
}

var small = runspec.ClosedLoop{Workload: "bcrypt", Params: report.Params{}.With("cost", 4), Batch: 1, Iterations: 2, Warmup: 1, Workers: 1, GOMAXPROCS: 1}

func TestServeRunsTheOpenLoop(t *testing.T) {
	s := newSession(t, serve(context.Background()))
	ctx := context.Background()
	o := runspec.OpenLoop{Rate: 200, Arrivals: runspec.ArrivalsFixed, Work: 100 * time.Microsecond, Workers: 1, Queue: 100, Duration: 50 * time.Millisecond}
	require.NoError(t, s.parent.ConfigureOpen(o))
	require.NoError(t, s.parent.Go())
	require.NoError(t, s.parent.WaitWarm(ctx))
	require.NoError(t, s.parent.Measure())
	res, err := s.parent.WaitLatency(ctx)
	require.NoError(t, err)
	assert.Equal(t, 10, res.Offered, "200/s over 50ms, the first at 0")
	assert.Equal(t, res.Offered, res.Completed+res.Dropped)
	assert.Positive(t, res.Calibration.IterationsPerMs)
	assert.NoError(t, s.end(t))
}

func TestResultOfTheOtherLoopIsAProtocolError(t *testing.T) {
	s := newSession(t, serve(context.Background()))
	ctx := context.Background()
	require.NoError(t, s.parent.Configure(small))
	require.NoError(t, s.parent.Go())
	require.NoError(t, s.parent.WaitWarm(ctx))
	require.NoError(t, s.parent.Measure())
	_, err := s.parent.WaitLatency(ctx)
	assert.ErrorIs(t, err, ErrProtocol)
	assert.ErrorContains(t, err, "no open-loop result")
}

func TestStartWithBothLoopsIsIncomplete(t *testing.T) {
	both := runspec.OpenLoop{Rate: 1}
	_, err := decode(mustJSON(t, Message{Type: TypeStart, Config: &small, Open: &both}), TypeStart)
	assert.ErrorIs(t, err, ErrProtocol)
	_, err = decode(mustJSON(t, Message{Type: TypeStart}), TypeStart)
	assert.ErrorIs(t, err, ErrProtocol)
}

func mustJSON(t *testing.T, m Message) []byte {
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func TestServeRunsTheExchange(t *testing.T) {
	s := newSession(t, serve(context.Background()))
	ctx := context.Background()
	require.NoError(t, s.parent.Configure(small))
	require.NoError(t, s.parent.Go())
	require.NoError(t, s.parent.WaitWarm(ctx))
	require.NoError(t, s.parent.Measure())
	res, err := s.parent.Wait(ctx)
	require.NoError(t, err)
	assert.Len(t, res.Iterations, 2, "the warm-up stays in the child")
	assert.Equal(t, 1, res.GOMAXPROCS)
	for _, it := range res.Iterations {
		assert.Equal(t, small.Batch, it.Workers[0].Ops)
		if runtime.GOOS == "linux" {
			assert.NotEmpty(t, it.Workers[0].CPUs, "where the worker ran")
		}
	}
	assert.Positive(t, res.MeasuredCPU, "the child's CPU time over the measured iterations comes back")
	assert.NoError(t, s.end(t))
	assert.False(t, s.killed.Load())
}

// Every field of a closed-loop result reaches the parent as the child
// sent it: where each worker ran and its counters included, and the
// child's CPU time over the measured iterations (the usage of a v1 slice
// without a cpuacct counter).
func TestResultSurvivesTheTrip(t *testing.T) {
	sent := bench.Result{GOMAXPROCS: 2, MeasuredCPU: 123456789 * time.Nanosecond, Iterations: []bench.Iteration{{Wall: 30 * time.Millisecond, Workers: []bench.WorkerSample{
		{Wall: 30 * time.Millisecond, CPU: 12 * time.Millisecond, Ops: 50, FaultsMinor: 256, FaultsMajor: 1,
			CtxVoluntary: 5, CtxInvoluntary: 9, CPUs: []int{0, 3, 130}, CPUChanges: 4, Migrations: 6, KernelMigrations: true},
		{Wall: 20 * time.Millisecond, CPU: 20 * time.Millisecond, Ops: 49, CPUs: []int{1}, CPUChanges: 0},
	}}}}
	s := newSession(t, func(in io.Reader, out io.Writer) error {
		r := bufio.NewReader(in)
		enc := json.NewEncoder(out)
		for _, want := range []Type{TypeStart, TypeGo, TypeMeasure} {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return err
			}
			if _, err := decode(line, want); err != nil {
				return err
			}
			if want == TypeGo {
				if err := enc.Encode(Message{Type: TypeWarm}); err != nil {
					return err
				}
			}
		}
		return enc.Encode(Message{Type: TypeResult, Result: &sent})
	})
	ctx := context.Background()
	require.NoError(t, s.parent.Configure(small))
	require.NoError(t, s.parent.Go())
	require.NoError(t, s.parent.WaitWarm(ctx))
	require.NoError(t, s.parent.Measure())
	got, err := s.parent.Wait(ctx)
	require.NoError(t, err)
	assert.Equal(t, sent, got)
	assert.NoError(t, s.end(t))
}

// A configuration the workload refuses comes back as a bad config, in the
// workload's own words, and ends the child.
func TestBadConfigKeepsItsKind(t *testing.T) {
	s := newSession(t, serve(context.Background()))
	cfg := small
	cfg.Params = report.Params{}.With("cost", 3)
	require.NoError(t, s.parent.Configure(cfg))
	require.NoError(t, s.parent.Go())
	err := s.parent.WaitWarm(context.Background())
	assert.ErrorIs(t, err, ErrBadConfig)
	assert.NotErrorIs(t, err, ErrWorkload)
	assert.ErrorContains(t, err, "bcrypt cost 3 outside 4–31")
	assert.True(t, s.killed.Load(), "an error ends the exchange")
	assert.NoError(t, s.end(t), "the child replied: nothing left for it to report")
}

// A child cancelled during its run (a signal sent to it alone) says so.
func TestInterruptedKeepsItsKind(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := newSession(t, serve(ctx))
	require.NoError(t, s.parent.Configure(small))
	cancel()
	require.NoError(t, s.parent.Go())
	err := s.parent.WaitWarm(context.Background())
	assert.ErrorIs(t, err, ErrInterrupted)
	assert.EqualError(t, err, context.Canceled.Error(), "the text is the child's")
}

// Every kind survives the trip, whatever the child's error wrapped.
func TestEveryKindCrossesThePipe(t *testing.T) {
	for _, c := range []struct {
		err  error
		want error
	}{
		{fmt.Errorf("iteration 3: %w", errors.New("out of entropy")), ErrWorkload},
		{fmt.Errorf("iteration 0: %w", decl.ErrBadConfig), ErrBadConfig},
		{fmt.Errorf("iteration 2: %w", context.DeadlineExceeded), ErrInterrupted},
		{errorf(KindProtocol, "unexpected message"), ErrProtocol},
	} {
		s := newSession(t, func(_ io.Reader, out io.Writer) error {
			return reply(json.NewEncoder(out), c.err)
		})
		_, err := s.parent.Wait(context.Background())
		assert.ErrorIs(t, err, c.want, c.err.Error())
		assert.EqualError(t, err, c.err.Error())
		for _, other := range sentinels {
			if other != c.want {
				assert.NotErrorIs(t, err, other)
			}
		}
	}
}

// A parent that hangs up before go, or during the warm-up, gets no reply:
// the child returns, saying why.
func TestParentClosingEarly(t *testing.T) {
	s := newSession(t, serve(context.Background()))
	require.NoError(t, s.parent.Configure(small))
	s.toChild.Close()
	err := s.end(t)
	assert.ErrorIs(t, err, ErrInterrupted)
	assert.EqualError(t, err, "the parent closed the control pipe before saying go")

	s = newSession(t, serve(context.Background()))
	s.toChild.Close()
	assert.ErrorIs(t, s.end(t), ErrInterrupted, "before the configuration")

	s = newSession(t, serve(context.Background()))
	require.NoError(t, s.parent.Configure(small))
	require.NoError(t, s.parent.Go())
	require.NoError(t, s.parent.WaitWarm(context.Background()))
	s.toChild.Close()
	// Its output still open, the child says why.
	_, err = s.parent.Wait(context.Background())
	assert.ErrorIs(t, err, ErrInterrupted)
	assert.EqualError(t, err, "the parent closed the control pipe during the warm-up")
	assert.NoError(t, s.end(t), "the reply was written")
}

// A line the child cannot read, in place of go or measure, is answered
// with a protocol error, not run.
func TestChildRefusesAMalformedMessage(t *testing.T) {
	for _, line := range []string{"go\n", `{"type":"measure"}` + "\n", "{\n"} {
		s := newSession(t, serve(context.Background()))
		require.NoError(t, s.parent.Configure(small))
		_, err := io.WriteString(s.toChild, line)
		require.NoError(t, err)
		err = s.parent.WaitWarm(context.Background())
		assert.ErrorIs(t, err, ErrProtocol, line)
		assert.NoError(t, s.end(t))
	}

	s := newSession(t, serve(context.Background()))
	_, err := io.WriteString(s.toChild, `{"type":"start"}`+"\n")
	require.NoError(t, err)
	require.NoError(t, s.parent.Go())
	err = s.parent.WaitWarm(context.Background())
	assert.ErrorIs(t, err, ErrProtocol)
	assert.ErrorContains(t, err, "incomplete message")
}

// A line the parent cannot read ends the child.
func TestParentRefusesAMalformedMessage(t *testing.T) {
	for _, line := range []string{
		"{\"warm\":true}\n",                        // today's reply union: no type
		"{\"type\":\"result\"}\n",                  // no result
		"{\"type\":\"error\",\"kind\":\"oops\"}\n", // no such kind
		"{\"type\":\"go\"}\n",                      // the parent's own word
		strings.Repeat("x", 1000) + "\n",
	} {
		s := newSession(t, func(in io.Reader, out io.Writer) error {
			_, err := io.WriteString(out, line)
			return err
		})
		err := s.parent.WaitWarm(context.Background())
		assert.ErrorIs(t, err, ErrProtocol, line)
		assert.Less(t, len(err.Error()), 400, "a long line is clipped")
		assert.True(t, s.killed.Load(), line)
	}
}

// A message out of place is a protocol error too: a result where warm
// belongs.
func TestParentWantsWarmFirst(t *testing.T) {
	s := newSession(t, func(in io.Reader, out io.Writer) error {
		return json.NewEncoder(out).Encode(Message{Type: TypeResult, Result: &bench.Result{}})
	})
	err := s.parent.WaitWarm(context.Background())
	assert.ErrorIs(t, err, ErrProtocol)
	assert.EqualError(t, err, "workload process: unexpected message before warm-up ended")
}

// A child that ends without a word: the parent says how it ended.
func TestParentReportsAChildThatDied(t *testing.T) {
	s := newSession(t, func(io.Reader, io.Writer) error { return nil })
	_, err := s.parent.Wait(context.Background())
	assert.ErrorIs(t, err, io.EOF)
	assert.ErrorContains(t, err, "child ended")
}

// The parent's context ending kills the child rather than wait for it.
func TestParentCancelKillsTheChild(t *testing.T) {
	s := newSession(t, func(in io.Reader, _ io.Writer) error {
		_, err := io.Copy(io.Discard, in) // silent until killed
		return err
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := s.parent.WaitWarm(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.True(t, s.killed.Load())
	s.end(t)
}

// The child's CPU time travels under a key that says its unit.
func TestMeasuredCPUKey(t *testing.T) {
	m := Message{Type: TypeResult, Result: &bench.Result{MeasuredCPU: 123456789 * time.Nanosecond}}
	assert.Contains(t, string(mustJSON(t, m)), `"measured_cpu_ns":123456789`)
}
