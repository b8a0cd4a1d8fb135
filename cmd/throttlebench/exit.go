package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/childproto"
	"github.com/throttlebench/throttlebench/internal/sizing"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Exit codes, in one place.
const (
	exitOK         = 0
	exitFailure    = 1 // the run failed at run time
	exitUsage      = 2 // bad usage or invalid input; nothing was created
	exitRegression = 3 // compare found a significant regression
	exitNoLimit    = 4 // size decided that no limit meets the target
	exitUndecided  = 5 // size could not decide (refused windows, --budget, a server that exited)
	// A run ended by a signal exits 128+signal, as shells expect.
)

// signalError is the cause of a context cancelled by SIGINT or SIGTERM.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string { return "interrupted by " + signalName(e.sig) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// run is the whole program with its outside world injected: arguments,
// output streams; it returns the exit code. Tests call it many times, so it
// gives its signal handler back when it returns.
func run(args []string, stdout, stderr io.Writer) int {
	return execute(args, stdout, stderr, true)
}

// execute is run. main keeps the signal handler until the process exits
// (stopSignals false): restoring the default action before os.Exit opened a
// window in which a SIGTERM killed a run that had finished and written its
// output (seen by the fault soak).
func execute(args []string, stdout, stderr io.Writer, stopSignals bool) int {
	// latency --serve's shim: no signal handler of ours, the server's own
	// from its exec on.
	if len(args) > 0 && args[0] == childproto.ExecArg {
		return childproto.ExecAfterGo(args[1:], stderr)
	}
	if len(args) > 0 && args[0] == childproto.GuardArg {
		return childproto.Guard(args[1:], os.Stdin, stderr)
	}
	// The first signal cancels the run, which then kills its child and removes
	// its slice; further signals are swallowed so that the cleanup finishes.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if stopSignals {
		defer signal.Stop(sigs)
	}
	go func() {
		for s := range sigs {
			cancel(&signalError{s.(syscall.Signal)})
		}
	}()

	if len(args) > 0 && args[0] == childproto.Arg {
		if err := childproto.Serve(ctx, os.Stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "throttlebench workload: %v\n", err)
			return exitFailure
		}
		return exitOK
	}

	started := false
	root := newRootCmd(stdout, stderr, &started)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var sigErr *signalError
	if errors.As(context.Cause(ctx), &sigErr) {
		fmt.Fprintf(stderr, "throttlebench: %v; nothing left behind\n", sigErr)
		return 128 + int(sigErr.sig)
	}
	printError(stderr, err)
	// Bad input, whichever command and room found it, is a badinput.Error
	// (cobra's own flag errors become one in flagError); a --parent that
	// is no place for slices is bad input too, found where slices are made.
	var ce *codeError
	var pe *cgroup.ParentError
	var bad *badinput.Error
	switch {
	case !started || errors.As(err, &bad) || errors.As(err, &pe):
		return exitUsage
	case errors.As(err, &ce):
		return ce.code
	}
	return exitFailure
}

// printError prints an error on one line, then the end of a failed
// process's stderr, if it carries one, as lines of their own, indented
// (words.SplitStderr).
func printError(w io.Writer, err error) {
	text, tail := words.SplitStderr(err.Error())
	fmt.Fprintf(w, "throttlebench: %s\n", text)
	for _, l := range tail {
		fmt.Fprintf(w, "%s%s\n", words.StderrIndent, l)
	}
}

// oneLine keeps an error to one line, whatever a value or a library put
// in it (cobra's "Did you mean this?" suggestions span several).
func oneLine(msg string) string {
	if !strings.ContainsAny(msg, "\r\n") {
		return msg
	}
	return strings.Join(strings.Fields(msg), " ")
}

// codeError carries an exit code other than 1 for an outcome that is not a
// failure of the program (compare's regression verdict).
type codeError struct {
	code int
	err  error
}

func (e *codeError) Error() string { return e.err.Error() }
func (e *codeError) Unwrap() error { return e.err }

// sizeOutcome is size's exit code, from what the search came to: 0 with a
// recommendation, exitNoLimit where it decided that no limit meets the
// target, exitUndecided where it could not tell.
func sizeOutcome(r sizing.Result) error {
	switch r.Outcome {
	case sizing.OutcomeNoLimit:
		return &codeError{exitNoLimit, errors.New("no recommendation: " + r.Why)}
	case sizing.OutcomeUndecided:
		return &codeError{exitUndecided, errors.New("no recommendation, undecided: " + r.Why)}
	}
	return nil
}
