// Command benchhist keeps make bench's history and checks it
// (internal/benchhist holds the logic; docs/development.md the use).
//
//	benchhist record [-history DIR] [-time T] [-go VERSION] [-guest KERNEL] [-- COMMAND ARGS...]
//	benchhist check  [-history DIR] [-alpha A] [-threshold PCT] [-match KEYS] [-runs N] [-all] [-format text|markdown]
//
// record runs COMMAND (go test -bench ...), shows its output as it comes,
// and appends a line per benchmark to the history; it exits with
// COMMAND's status, so that a failing benchmark still fails make bench.
// An interrupted run records nothing. Without COMMAND it reads go test's
// output from stdin (and exits 0 however the test went). -guest says the
// benchmarks ran in a VM guest (make bench-vm: its console, on stdin) on
// that kernel, with cgroup v2 alone: its lines name that kernel and the
// guest's CPU (go test's cpu: line) and CPU count, so that check sets them
// against the same guest's runs only.
//
// check exits 0 when nothing moved, 3 when a metric moved (significant
// and above the threshold), 1 on an error, 2 on bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/throttlebench/throttlebench/internal/benchhist"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/compare"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Exit statuses of check (record passes COMMAND's on).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitMoved   = 3
)

const defaultHistory = "bench/history"

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr, os.Args[1:]))
}

func run(stdin io.Reader, stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: benchhist record|check [flags]; -h after either lists its flags")
		return exitUsage
	}
	switch args[0] {
	case "record":
		return record(stdin, stdout, stderr, args[1:])
	case "check":
		return check(stdout, stderr, args[1:])
	}
	fmt.Fprintf(stderr, "benchhist: unknown command %q: want record or check\n", args[0])
	return exitUsage
}

// module is the module's path, which the histories' folders leave out.
func module() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != "" {
		return bi.Main.Path
	}
	return "github.com/throttlebench/throttlebench"
}

func record(stdin io.Reader, stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("benchhist record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	history := fs.String("history", defaultHistory, "the history's directory")
	at := fs.String("time", "", "the run's start, RFC 3339 (make bench passes one for all its packages); default now")
	goVersion := fs.String("go", "", "the Go version that ran the benchmarks (go env GOVERSION); default the one that built benchhist")
	guest := fs.String("guest", "", "the kernel (uname -r) of the VM guest the benchmarks ran in, cgroup v2 alone; default: they ran here")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	now := time.Now()
	if *at != "" {
		t, err := time.Parse(time.RFC3339, *at)
		if err != nil {
			fmt.Fprintf(stderr, "benchhist record: invalid -time %q: want RFC 3339, such as 2026-01-02T15:04:05Z\n", *at)
			return exitUsage
		}
		now = t
	}
	env := benchhist.ReadEnv("/", now)
	if *goVersion != "" {
		env.Go = *goVersion
	}
	env.Commit, env.Dirty = gitState(*history)

	var in io.Reader = stdin
	name := "stdin"
	var cmd *exec.Cmd
	var interrupted atomic.Bool
	if cmdArgs := fs.Args(); len(cmdArgs) > 0 {
		cmd = exec.Command(cmdArgs[0], cmdArgs[1:]...)
		cmd.Stdin, cmd.Stderr = stdin, stderr
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			fmt.Fprintf(stderr, "benchhist record: %v\n", err)
			return exitFailure
		}
		// Ctrl-C reaches the command from the terminal; a signal sent to
		// us alone is passed on. Either way we stay to see it end, and
		// record nothing of an interrupted run.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(stderr, "benchhist record: %v\n", err)
			return exitFailure
		}
		done := make(chan struct{})
		defer close(done)
		go func() {
			for {
				select {
				case s := <-sigs:
					interrupted.Store(true)
					_ = cmd.Process.Signal(s)
				case <-done:
					return
				}
			}
		}()
		in, name = pipe, strings.Join(cmdArgs, " ")
	}
	benches, warnings, parseErr := benchhist.Parse(io.TeeReader(in, stdout), name)
	status := exitOK
	if cmd != nil {
		if parseErr != nil {
			// Keep the command's output flowing to its end.
			_, _ = io.Copy(stdout, in)
		}
		status = exitStatus(cmd.Wait())
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "benchhist record: warning: %s\n", w)
	}
	switch {
	case parseErr != nil:
		fmt.Fprintf(stderr, "benchhist record: %v: nothing recorded\n", parseErr)
		return max(status, exitFailure)
	case interrupted.Load() || status >= 128:
		fmt.Fprintln(stderr, "benchhist record: interrupted: nothing recorded")
		return max(status, 130)
	}
	if *guest != "" {
		env.Kernel, env.Cgroup = *guest, benchhist.Cgroup{Version: 2, Mode: cgroup.ModeV2}
		env.Machine = benchhist.Machine{}
		if len(benches) > 0 {
			env.Machine.CPUModel, env.Machine.NumCPU = benches[0].Config["cpu"], benches[0].Procs
		}
	}
	files, err := benchhist.AppendAll(benches, env, *history, module())
	if err != nil {
		fmt.Fprintf(stderr, "benchhist record: %v (%d of %s recorded)\n", err, len(files), words.N(len(benches), "benchmark"))
		return max(status, exitFailure)
	}
	commit := "no commit"
	if env.Commit != "" {
		commit = "commit " + env.Commit[:min(12, len(env.Commit))]
	}
	if env.Dirty {
		commit += ", dirty"
	}
	fmt.Fprintf(stderr, "benchhist record: %s of run %s (%s) appended below %s\n",
		words.N(len(files), "benchmark"), env.Time, commit, *history)
	return status
}

// exitStatus is the command's exit status; 128+N when signal N ended it.
func exitStatus(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return exitFailure
}

// gitState is the commit checked out here (where go test runs), and
// whether the tree differs from it, the history itself not counted. It
// neither takes git's index lock (root's make bench must leave the user's
// .git as it was) nor trusts a repository by its owner: make bench runs
// under sudo. Outside a checkout it is "", false.
func gitState(history string) (commit string, dirty bool) {
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-c", "safe.directory=*", "--no-optional-locks"}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	commit, err := git("rev-parse", "HEAD")
	if err != nil {
		return "", false
	}
	spec := []string{"status", "--porcelain", "--", ":/"}
	top, errTop := git("rev-parse", "--show-toplevel")
	abs, errAbs := filepath.Abs(history)
	if errTop == nil && errAbs == nil {
		if rel, err := filepath.Rel(top, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			spec = append(spec, ":(top,exclude)"+filepath.ToSlash(rel))
		}
	}
	status, err := git(spec...)
	return commit, err != nil || status != ""
}

func check(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("benchhist check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	history := fs.String("history", defaultHistory, "the history's directory")
	alpha := fs.Float64("alpha", compare.DefaultAlpha, "significance level of the U test")
	threshold := fs.String("threshold", strconv.FormatFloat(compare.DefaultThresholdPct, 'g', -1, 64),
		"smallest change of the median, in percent, that counts")
	match := fs.String("match", strings.Join(benchhist.DefaultMatch, ","),
		"keys an earlier run must share with the newest to be its baseline: "+strings.Join(benchhist.MatchKeys, ", ")+"; empty for none")
	runs := fs.Int("runs", 0, "pool only the last N matching earlier runs; 0 pools all")
	all := fs.Bool("all", false, "judge every benchmark's newest run, not only those in the newest run")
	format := fs.String("format", "text", "text or markdown")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "benchhist check: "+format+"\n", a...)
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usage("unexpected argument %q", fs.Arg(0))
	}
	if !(*alpha > 0 && *alpha < 1) {
		return usage("invalid -alpha %v: must be between 0 and 1 (exclusive), such as 0.05", *alpha)
	}
	t, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(*threshold), "%"), 64)
	if err != nil || !(t >= 0) || t > 1e6 {
		return usage("invalid -threshold %q: want a percentage ≥ 0, such as 5 or 5%%", *threshold)
	}
	keys, err := benchhist.ParseMatch(*match)
	if err != nil {
		return usage("invalid -match: %v", err)
	}
	if *runs < 0 {
		return usage("invalid -runs %d: want 0 (all) or more", *runs)
	}
	if *format != "text" && *format != "markdown" {
		return usage("invalid -format %q: want text or markdown", *format)
	}
	hs, warnings, err := benchhist.Load(*history)
	if err != nil {
		fmt.Fprintf(stderr, "benchhist check: %v (make bench writes the history)\n", err)
		return exitFailure
	}
	if len(hs) == 0 {
		fmt.Fprintf(stderr, "benchhist check: no history below %s: make bench writes it\n", *history)
		return exitFailure
	}
	res := benchhist.Check(hs, benchhist.Options{Alpha: *alpha, ThresholdPct: t, Match: keys, Runs: *runs, All: *all})
	res.Warnings = append(warnings, res.Warnings...)
	if err := benchhist.Write(stdout, res, module(), *format); err != nil {
		fmt.Fprintf(stderr, "benchhist check: %v\n", err)
		return exitFailure
	}
	if res.Moved() > 0 {
		return exitMoved
	}
	return exitOK
}
