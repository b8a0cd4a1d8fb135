package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Process is what an iteration of a workload that runs a process
// measured: the process's own start and exit, and its resource usage as
// wait4 gave it (its reaped descendants' included).
type Process struct {
	Start, End     time.Time
	CPU            time.Duration
	FaultsMinor    uint64
	FaultsMajor    uint64
	CtxVoluntary   uint64
	CtxInvoluntary uint64
}

// ProcessWorkload is a Workload that runs a process per operation: the
// closed loop times it from its start to its exit (Last), runs Prepare
// before each iteration outside the measurement (it says whether it ran
// anything), and hands Do the run's context (DoContext), so that a
// cancelled run ends the process at once.
type ProcessWorkload interface {
	Workload
	DoContext(ctx context.Context) error
	Prepare(ctx context.Context) (bool, error)
	Last() Process
}

// tailBytes is how much of a failed command's stderr is read for its
// error's last lines (words.StderrMaxLines of them).
const tailBytes = 8192

type commandWork struct {
	path         string
	argv         []string
	prepare      string
	show, ignore bool
	devnull      *os.File // stdin, and stdout when not shown
	stderr       *os.File // an unlinked file: the end of the last run's stderr
	env          []string // the environment, read at the first run
	dirty        bool     // the last run wrote to stderr: empty it first
	last         Process
}

func newCommand(ps report.Params, _ int) (Workload, error) {
	argv := decl.CommandArgv(ps)
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: command: no command given", decl.ErrBadConfig)
	}
	// Looked up once, not on every run.
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("%w: command %q: %w", decl.ErrBadConfig, argv[0], err)
	}
	w := &commandWork{path: path, argv: argv, prepare: ps.String("prepare")}
	if raw, ok := ps.Raw("show_output"); ok {
		w.show = string(raw) == "true"
	}
	if raw, ok := ps.Raw("ignore_failure"); ok {
		w.ignore = string(raw) == "true"
	}
	if w.devnull, err = os.Open(os.DevNull); err != nil {
		return nil, err
	}
	// A file, not a pipe: a pipe needs a reader, and a daemonised
	// grandchild that kept it open would hold that reader up.
	if w.stderr, err = os.CreateTemp("", "throttlebench-stderr-"); err != nil {
		return nil, fmt.Errorf("a file for the command's stderr: %w", err)
	}
	os.Remove(w.stderr.Name())
	return w, nil
}

func (w *commandWork) Do() error { return w.DoContext(context.Background()) }

func (w *commandWork) Last() Process { return w.last }

// Prepare runs --prepare through sh -c, outside the measurement.
func (w *commandWork) Prepare(ctx context.Context) (bool, error) {
	if w.prepare == "" {
		return false, nil
	}
	if _, err := w.run(ctx, "/bin/sh", []string{"sh", "-c", w.prepare}, false); err != nil {
		return true, fmt.Errorf("--prepare %q %w", w.prepare, err)
	}
	return true, nil
}

// DoContext runs the command once, timed from just before its fork to
// just after its wait, and leaves nothing of its process group behind.
func (w *commandWork) DoContext(ctx context.Context) error {
	_, err := w.run(ctx, w.path, w.argv, true)
	return err
}

// run runs path once, straight through fork, exec and wait4 (os/exec
// would copy the environment, open a pidfd and start a goroutine per run,
// all inside the timed window): in a process group of its own, killed
// whole when ctx ends and after the run (a background grandchild does not
// outlive its iteration), SIGKILL when the thread that started it dies
// (the loop keeps its thread locked). timed runs are the iteration's.
func (w *commandWork) run(ctx context.Context, path string, argv []string, timed bool) (Process, error) {
	if w.env == nil {
		// Once, after the loop has set GOMAXPROCS for it.
		w.env = os.Environ()
	}
	out, errOut := w.devnull.Fd(), w.stderr.Fd()
	if w.show {
		out, errOut = os.Stderr.Fd(), os.Stderr.Fd()
	} else if w.dirty {
		w.stderr.Truncate(0)
		w.stderr.Seek(0, 0)
		w.dirty = false
	}
	fds := [3]uintptr{w.devnull.Fd(), out, errOut}
	start := time.Now()
	pid, err := spawn(path, argv, w.env, fds)
	if err != nil {
		return Process{}, fmt.Errorf("start %s: %w", argv[0], err)
	}
	stop := context.AfterFunc(ctx, func() { killGroup(pid) })
	st, err := reap(pid)
	end := time.Now()
	stop()
	killGroup(pid)
	if !w.show {
		// The run shares the file's offset: it moved if it wrote.
		off, _ := w.stderr.Seek(0, io.SeekCurrent)
		w.dirty = off != 0
	}
	if err != nil {
		return Process{}, fmt.Errorf("wait for %s: %w", argv[0], err)
	}
	p := Process{Start: start, End: end, CPU: st.cpu, FaultsMinor: st.minflt, FaultsMajor: st.majflt,
		CtxVoluntary: st.nvcsw, CtxInvoluntary: st.nivcsw}
	if timed {
		w.last = p
	}
	if st.failure == "" || timed && w.ignore {
		return p, nil // --ignore-failure: a non-zero status or a signal alike
	}
	if w.show { // its stderr went to ours
		return p, errors.New(st.failure)
	}
	return p, errors.New(words.WithStderr(st.failure, w.tail()))
}

// exit is how a run ended, as wait4 said.
type exit struct {
	failure                       string // "" for status 0; else "exited with status 3", "ended by signal: killed"
	cpu                           time.Duration
	minflt, majflt, nvcsw, nivcsw uint64
}

// tail is the end of the run's stderr, at most tailBytes, from a whole
// line.
func (w *commandWork) tail() string {
	end, err := w.stderr.Seek(0, 2)
	if err != nil || end == 0 {
		return ""
	}
	off := max(end-tailBytes, 0)
	b := make([]byte, end-off)
	n, _ := w.stderr.ReadAt(b, off)
	s := string(b[:n])
	if off > 0 {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return s
}
