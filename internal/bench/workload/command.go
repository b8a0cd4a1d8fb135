package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/report"
)

// The command: someone else's program, run once per iteration from a
// clean start (run -- CMD), as hyperfine runs it with -N: its argv as
// given, no shell. Its process and its CPU time are the iteration's.
var commandSpec = Spec{
	Name:  "command",
	Help:  "your own program, given after --: started once per iteration",
	Alone: true,
	Params: []Param{
		{Name: "command", Kind: Argv, Hidden: true,
			Help: "the command line run once per iteration (given after --, no shell)"},
		{Name: "prepare", Kind: Text,
			Help: "a command run through sh -c before each iteration of the command, outside the measurement (as hyperfine's --prepare)"},
		{Name: "show-output", JSON: "show_output", Kind: Flag,
			Help: "pass the command's stdout and stderr to throttlebench's stderr (default: discarded, the end of stderr kept for a failure)"},
		{Name: "ignore-failure", JSON: "ignore_failure", Kind: Flag,
			Help: "measure a command that exits non-zero as any other (default: the run fails, naming the iteration, the status and the end of stderr)"},
	},
	Text: func(c report.Config) string { return "command " + CommandLine(c.Params) },
	Key: func(c report.Config) []string {
		k := []string{CommandLine(c.Params)}
		if p := c.Params.String("prepare"); p != "" {
			k = append(k, "prepare="+p)
		}
		return k
	},
	Gobench: func(c report.Config) string {
		// A benchmark name is one field: no spaces.
		return "/command=" + strings.Join(strings.Fields(CommandLine(c.Params)), "_")
	},
	new: newCommand,
}

// CommandArgv is a command workload's command line as its config holds it.
func CommandArgv(ps report.Params) []string {
	var argv []string
	if raw, ok := ps.Raw("command"); ok {
		_ = json.Unmarshal(raw, &argv)
	}
	return argv
}

// CommandLine is the command as a person would type it: each argument
// that a shell would split or expand quoted.
func CommandLine(ps report.Params) string {
	argv := CommandArgv(ps)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

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
// before each iteration outside the measurement, and hands Do the run's
// context (DoContext), so that a cancelled run ends the process at once.
type ProcessWorkload interface {
	Workload
	DoContext(ctx context.Context) error
	Prepare(ctx context.Context) error
	Last() Process
}

// tailBytes is how much of a failed command's stderr its error quotes.
const tailBytes = 2048

type commandWork struct {
	path          string
	argv          []string
	prepare       string
	show, ignore  bool
	devnull       *os.File // stdin, and stdout when not shown
	stderr        *os.File // an unlinked file: the end of the last run's stderr
	last          Process
}

func newCommand(ps report.Params, _ int) (Workload, error) {
	argv := CommandArgv(ps)
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: command: no command given", ErrBadConfig)
	}
	// Looked up once: exec.Command would search PATH on every run.
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("%w: command %q: %w", ErrBadConfig, argv[0], err)
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
	// A file, not a pipe: os/exec would copy a pipe in a goroutine of its
	// own every run, and Wait would wait for a daemonised grandchild that
	// kept the pipe open.
	if w.stderr, err = os.CreateTemp("", "throttlebench-stderr-"); err != nil {
		return nil, fmt.Errorf("a file for the command's stderr: %w", err)
	}
	os.Remove(w.stderr.Name())
	return w, nil
}

func (w *commandWork) Do() error { return w.DoContext(context.Background()) }

func (w *commandWork) Last() Process { return w.last }

// Prepare runs --prepare through sh -c, outside the measurement.
func (w *commandWork) Prepare(ctx context.Context) error {
	if w.prepare == "" {
		return nil
	}
	cmd := w.cmd(ctx, "/bin/sh", []string{"sh", "-c", w.prepare})
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
	}
	if err = w.wait(cmd, err); err != nil {
		return fmt.Errorf("--prepare %q %w", w.prepare, err)
	}
	return nil
}

// cmd is one run of path: its own process group, killed whole when ctx
// ends; SIGKILL when the thread that started it dies (the closed loop's
// worker is locked to its thread).
func (w *commandWork) cmd(ctx context.Context, path string, argv []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path)
	cmd.Args = argv
	cmd.Stdin = w.devnull
	cmd.Stdout, cmd.Stderr = w.devnull, w.stderr
	if w.show {
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	}
	cmd.SysProcAttr = procAttr()
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	w.stderr.Truncate(0)
	w.stderr.Seek(0, 0)
	return cmd
}

// DoContext runs the command once, timed from just before its start to
// just after its exit, and leaves nothing of its process group behind.
func (w *commandWork) DoContext(ctx context.Context) error {
	cmd := w.cmd(ctx, w.path, w.argv)
	start := time.Now()
	err := cmd.Start()
	if err != nil {
		return fmt.Errorf("start %s: %w", w.argv[0], err)
	}
	err = cmd.Wait()
	end := time.Now()
	w.last = Process{Start: start, End: end}
	if ps := cmd.ProcessState; ps != nil {
		w.last.CPU = ps.UserTime() + ps.SystemTime()
		fillRusage(&w.last, ps)
	}
	return w.wait(cmd, err)
}

// wait ends what the run left in its process group (a background
// grandchild: nothing outlives its iteration) and explains a failure.
func (w *commandWork) wait(cmd *exec.Cmd, err error) error {
	if cmd.Process != nil {
		killGroup(cmd.Process.Pid)
	}
	if err == nil {
		return nil
	}
	if cmd.ProcessState == nil {
		return err
	}
	if w.ignore && cmd.Path == w.path {
		return nil // --ignore-failure: a non-zero status or a signal alike
	}
	msg := fmt.Sprintf("exited with status %d", cmd.ProcessState.ExitCode())
	if !cmd.ProcessState.Exited() {
		msg = "ended by " + cmd.ProcessState.String()
	}
	if tail := w.tail(); tail != "" {
		msg += "; the end of its stderr: " + tail
	} else if !w.show {
		msg += "; its stderr was empty"
	}
	return fmt.Errorf("%s", msg)
}

// tail is the last lines of the run's stderr, at most tailBytes.
func (w *commandWork) tail() string {
	if w.show {
		return ""
	}
	end, err := w.stderr.Seek(0, 2)
	if err != nil || end == 0 {
		return ""
	}
	off := max(end-tailBytes, 0)
	b := make([]byte, end-off)
	n, _ := w.stderr.ReadAt(b, off)
	s := strings.TrimSpace(string(b[:n]))
	if off > 0 {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:] // whole lines
		}
	}
	return fmt.Sprintf("%q", s)
}
