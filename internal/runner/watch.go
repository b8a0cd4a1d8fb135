package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/childproto"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/words"
)

// ErrCommandExited is the cause of the context Watch's measure gets when
// the command ends on its own: measuring's normal end.
var ErrCommandExited = errors.New("the command exited")

// Watched is how sample -- CMD's command ended.
type Watched struct {
	// Exit is how the command ended on its own ("exit status 0",
	// "signal: killed"); "" when it still ran as measuring ended, and was
	// stopped (SIGTERM, then SIGKILL after childproto.StopGrace).
	Exit string
	// Stderr is the end of what it wrote on its stderr.
	Stderr   string
	Warnings []report.Warning
}

// Failed says the command ended on its own, other than with exit status 0.
func (w *Watched) Failed() bool { return w.Exit != "" && w.Exit != "exit status 0" }

func (w *Watched) AddWarning(s report.Warning) { w.Warnings = append(w.Warnings, s) }

// Watchable is a command started as --serve's server is
// (childproto.Server), and its end.
type Watchable interface {
	Pid() int
	Go() error
	Exited() (string, bool)
	Stop(grace time.Duration)
	Stderr() string
	Done() <-chan struct{}
}

// Guard is a started guard of a slice (childproto.GuardProcess).
type Guard interface{ Done() }

// Commands are Watch's seams: the command's start and its slice's
// guard's (childproto.StartServer, childproto.StartGuard when unset).
type Commands struct {
	StartCommand func(exe string, argv []string) (Watchable, error)
	StartGuard   func(exe, dir string) (Guard, error)
}

func (c Commands) withDefaults() Commands {
	if c.StartCommand == nil {
		c.StartCommand = func(exe string, argv []string) (Watchable, error) {
			s, err := childproto.StartServer(exe, argv, nil)
			if err != nil {
				return nil, err
			}
			return s, nil
		}
	}
	if c.StartGuard == nil {
		c.StartGuard = func(exe, dir string) (Guard, error) {
			g, err := childproto.StartGuard(exe, dir)
			if err != nil {
				return nil, err
			}
			return g, nil
		}
	}
	return c
}

// QuoteArgv is a command line as a user would type it, in backquotes.
func QuoteArgv(a []string) string { return childproto.QuoteArgv(a) }

// Watch is sample -- CMD: argv started in a slice of its own, made with
// o.Limits (none for sample, which measures and does not limit), the way
// --serve starts a server: its shim moved into the slice before it runs,
// a guard outside that empties the slice if this process dies by SIGKILL.
// measure gets the slice, a context that ends with ErrCommandExited when
// the command ends (or as ctx does), and start, which lets the command run:
// measure calls it once it is ready to count (its first reading), so that
// no CPU time of the command comes before it. Once measure returns, the
// command is stopped (one never let go ends at once), what it left in the
// slice killed and the slice removed, on every path.
func (l *Local) Watch(ctx context.Context, o Options, argv []string, measure Measure) (*Watched, error) {
	k := l.withDefaults()
	o.Mode = ModeCreate
	return inCgroup(k, ctx, o, func(ctx context.Context, o Options, _ time.Time, slice Slice, notes []report.Warning) (*Watched, error) {
		return k.watch(ctx, o, slice, notes, argv, measure)
	}, nil)
}

// Measure is what Watch runs while the command does (see Watch).
type Measure func(ctx context.Context, slice cgroup.Cgroup, start func() error) error

func (k Local) watch(ctx context.Context, o Options, slice Slice, notes []report.Warning, argv []string, measure Measure) (w *Watched, err error) {
	w = &Watched{Warnings: notes}
	c := k.Commands.withDefaults()
	guard, err := c.StartGuard(o.Exe, slice.Cgroup().Dir)
	if err != nil {
		return nil, err
	}
	defer guard.Done()
	cmd, err := c.StartCommand(o.Exe, argv)
	if err != nil {
		return nil, err
	}
	defer func() {
		cmd.Stop(childproto.StopGrace)
		if n, kerr := slice.KillLeft(0); n > 0 || kerr != nil {
			msg := fmt.Sprintf("the command left %s in its slice after it was stopped: killed, so that the slice could be removed", words.N(n, "process"))
			if kerr != nil {
				msg = fmt.Sprintf("the command left processes in its slice that could not all be killed (%d killed): %v", n, kerr)
			}
			w.AddWarning(report.Warning{Kind: report.KindKilled, Text: msg})
		}
	}()
	if err := slice.AddProc(cmd.Pid()); err != nil {
		return nil, fmt.Errorf("move the command into %s: %w", slice.Cgroup().Dir, err)
	}
	mctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	start := func() error {
		if err := cmd.Go(); err != nil {
			return fmt.Errorf("start the command %s: %w", QuoteArgv(argv), err)
		}
		go func() {
			select {
			case <-cmd.Done():
				cancel(ErrCommandExited)
			case <-mctx.Done():
			}
		}()
		return nil
	}
	err = measure(mctx, slice.Cgroup(), start)
	if how, exited := cmd.Exited(); exited {
		w.Exit, w.Stderr = how, cmd.Stderr()
	}
	return w, err
}
