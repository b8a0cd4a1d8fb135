package childproto

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Serve is the child's side: read the configuration, wait for go, run the
// closed-loop or the open-loop driver, reply. It returns an error only when
// it could not reply: the parent went away, or the reply could not be
// written; an error it replied with is the parent's to report.
func Serve(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	in := bufio.NewReader(stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		return &Error{Kind: KindInterrupted, Msg: fmt.Sprintf("read config: %v", err)}
	}
	start, startErr := decode(line, TypeStart, TypeInit)
	// Not a word before go (see the package comment), even about a bad start.
	line, err = in.ReadBytes('\n')
	if err != nil {
		if startErr != nil {
			return startErr
		}
		return errorf(KindInterrupted, "the parent closed the control pipe before saying go")
	}
	enc := json.NewEncoder(stdout)
	if _, err := decode(line, TypeGo); startErr != nil || err != nil {
		return reply(enc, errors.Join(startErr, err))
	}

	if start.Instance != nil {
		return serveInstance(ctx, *start.Instance, in, enc)
	}
	// Warm, then wait for measure: the parent reads its counters between.
	warm := func() error {
		if err := enc.Encode(Message{Type: TypeWarm}); err != nil {
			return err
		}
		line, err := in.ReadBytes('\n')
		if err != nil {
			return errorf(KindInterrupted, "the parent closed the control pipe during the warm-up")
		}
		_, err = decode(line, TypeMeasure)
		return err
	}
	if start.Open != nil {
		lat, err := bench.RunOpenLoop(ctx, *start.Open, warm)
		if err != nil {
			return reply(enc, err)
		}
		return enc.Encode(Message{Type: TypeResult, Latency: &lat})
	}
	// The child runs nothing but the workload: a lone worker may go
	// unlocked (bench.RunAlone).
	cfg := *start.Config
	if cfg.StatDir != "" {
		// A command's loop reads its slice's counters around each run.
		if f, err := cgroup.OpenStat(cfg.StatDir); err == nil {
			defer f.Close()
			cfg.Stat = StatReader(f.Read)
		}
	}
	if cfg.StatDir != "" {
		// After its reply a command's child stays until its parent ends
		// it: the parent empties the slice first (KillLeft, but this
		// child). If the parent goes before (killed: its control pipe
		// closes and its death signal, SIGTERM, ends ctx), no one else
		// will, and a daemon the command left would hold the slice:
		// the child kills what is in it and goes. A run killed just
		// after its last iteration left six daemons so (TestCommandSoak).
		// A reply to a parent gone must fail, not kill this process
		// (SIGPIPE, on its stdout) before it has emptied the slice.
		signal.Ignore(syscall.SIGPIPE)
		defer emptyWhenOrphaned(ctx, in, cfg.StatDir)
	}
	res, err := bench.RunAlone(ctx, cfg, warm)
	if err != nil {
		return reply(enc, err)
	}
	return enc.Encode(Message{Type: TypeResult, Result: &res})
}

// emptyWhenOrphaned waits until the parent has gone (in, its control
// pipe, ends, or ctx does) and kills every process in the slice at dir but
// this one. The parent, alive, ends this process before.
func emptyWhenOrphaned(ctx context.Context, in io.Reader, dir string) {
	gone := make(chan struct{})
	go func() {
		io.Copy(io.Discard, in) // the parent says nothing more: until EOF
		close(gone)
	}()
	select {
	case <-gone:
	case <-ctx.Done():
	}
	cgroup.KillIn(dir, os.Getpid())
}

// StatReader turns a cgroup's cpu.stat reader into the loop's.
func StatReader(read func() (cgroup.CPUStat, error)) func() (runspec.IterStat, error) {
	return func() (runspec.IterStat, error) {
		s, err := read()
		return runspec.IterStat{NrPeriods: s.NrPeriods, NrThrottled: s.NrThrottled, ThrottledTime: s.ThrottledTime}, err
	}
}

// reply sends err to the parent with its kind.
func reply(enc *json.Encoder, err error) error {
	return enc.Encode(Message{Type: TypeError, Kind: kindOf(err), Error: err.Error()})
}
