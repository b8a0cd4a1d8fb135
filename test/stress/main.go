//go:build linux

// Command stress runs the timing-sensitive packages' tests again and again
// beside a busy loop pinned to each CPU, as on a shared CI runner, and
// prints how often each test failed. A bound that fails here fails in CI;
// run it before widening one (make test-stress, issue 32).
//
//	go run ./test/stress [-n 5] [-busy=true] [-run REGEXP] [packages]
//	go run ./test/stress -vm [-n 5] [-loads one,all] [-lanes v2,tracer,systemd] [-log DIR]
//
// It runs `go test -count=1 -json` over the packages together (so that
// they share the CPUs as in make test-host), -n times, and ends every
// busy loop it started, by PID, on every way out. With -vm it boots the VM
// lanes' guests instead (vm.go), -n times under each load.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// timingPackages have a wall-clock or ratio bound somewhere in their tests.
var timingPackages = []string{
	"./internal/tracer", "./test/integration", "./internal/runner", "./internal/bench/...",
	"./internal/httpload", "./internal/childproto", "./internal/usage", "./internal/host", "./cmd/throttlebench",
}

func main() {
	n := flag.Int("n", 5, "runs of the packages' tests")
	busy := flag.Bool("busy", true, "a busy loop pinned to each CPU beside the tests")
	goCmd := flag.String("go", "go", "the go command")
	logDir := flag.String("log", "", "a directory to keep each run's test2json output in (run-N.json), for the figures the tests log")
	only := flag.String("run", "", "run only the tests matching this regexp (go test -run), to measure one test's bound")
	vm := flag.Bool("vm", false, "boot the VM lanes' guests instead of running packages' tests (root)")
	loads := flag.String("loads", "one,all", "with -vm: the loads, in order, each -n runs: one (a busy loop on CPU 0), all (one on every CPU)")
	lanes := flag.String("lanes", "v2,tracer,systemd", "with -vm: the guests to boot")
	flag.Parse()
	pkgs := flag.Args()
	if *vm {
		os.Exit(mainVM(*n, *loads, *lanes, *logDir))
	}
	if len(pkgs) == 0 {
		pkgs = timingPackages
	}
	if *n < 1 {
		fmt.Fprintf(os.Stderr, "stress: invalid -n %d: want 1 or more\n", *n)
		os.Exit(2)
	}
	os.Exit(run(*n, *busy, *goCmd, *logDir, *only, pkgs))
}

func run(n int, busy bool, goCmd, logDir, only string, pkgs []string) int {
	var loops []*exec.Cmd
	stop := func() {
		for _, c := range loops {
			c.Process.Kill()
			c.Wait()
		}
		loops = nil
	}
	defer stop()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if busy {
		for cpu := range runtime.NumCPU() {
			c, err := busyLoop(cpu)
			if err != nil {
				fmt.Fprintf(os.Stderr, "stress: start a busy loop on CPU %d: %v\n", cpu, err)
				return 1
			}
			loops = append(loops, c)
		}
		fmt.Printf("stress: a busy loop on each of %d CPUs (pids", len(loops))
		for _, c := range loops {
			fmt.Printf(" %d", c.Process.Pid)
		}
		fmt.Println(")")
	}
	t := newTally()
	for i := range n {
		started := time.Now()
		args := []string{"test", "-count=1", "-json", "-timeout", "20m"}
		if only != "" {
			args = append(args, "-run", only)
		}
		cmd := exec.Command(goCmd, append(args, pkgs...)...)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, "stress:", err)
			return 1
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "stress:", err)
			return 1
		}
		var in io.Reader = out
		if logDir != "" {
			f, err := os.Create(filepath.Join(logDir, fmt.Sprintf("run-%d.json", i+1)))
			if err != nil {
				fmt.Fprintln(os.Stderr, "stress:", err)
				return 1
			}
			defer f.Close()
			in = io.TeeReader(out, f)
		}
		done := make(chan struct{})
		var failed []string
		go func() {
			defer close(done)
			failed = t.read(in, i)
		}()
		select {
		case s := <-sigs:
			cmd.Process.Signal(s)
			<-done
			cmd.Wait()
			fmt.Fprintf(os.Stderr, "stress: stopped by %v after %d of %d runs\n", s, i, n)
			t.print(i)
			return 130
		case <-done:
		}
		cmd.Wait()
		verdict := "green"
		if len(failed) > 0 {
			verdict = "red: " + strings.Join(failed, ", ")
		}
		fmt.Printf("stress: run %d of %d in %v: %s\n", i+1, n, time.Since(started).Round(time.Second), verdict)
	}
	return t.print(n)
}

// busyLoop starts a shell loop pinned to cpu.
func busyLoop(cpu int) (*exec.Cmd, error) {
	c := exec.Command("taskset", "-c", fmt.Sprint(cpu), "sh", "-c", "while :; do :; done")
	return c, c.Start()
}

// mainVM checks -vm's flags and runs the lanes.
func mainVM(n int, loads, lanes, logDir string) int {
	if n < 1 {
		fmt.Fprintf(os.Stderr, "stress: invalid -n %d: want 1 or more\n", n)
		return 2
	}
	var ls []string
	for _, l := range strings.Split(loads, ",") {
		if l != "one" && l != "all" {
			fmt.Fprintf(os.Stderr, "stress: invalid -loads %q: want one, all or one,all\n", loads)
			return 2
		}
		ls = append(ls, l)
	}
	var chosen []lane
	for _, name := range strings.Split(lanes, ",") {
		i := slices.IndexFunc(vmLanes, func(l lane) bool { return l.name == name })
		if i < 0 {
			fmt.Fprintf(os.Stderr, "stress: invalid -lanes %q: want some of v2, tracer, systemd\n", lanes)
			return 2
		}
		chosen = append(chosen, vmLanes[i])
	}
	if logDir == "" {
		logDir = filepath.Join("bin", "stress-vm") // beside make's other outputs, ignored by git
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "stress:", err)
		return 1
	}
	fmt.Printf("stress: the guests' consoles go to %s\n", logDir)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	return runVM(n, ls, chosen, logDir, runtime.NumCPU(), busyLoop, sigs)
}

// event is the part of test2json's output read here.
type event struct {
	Action, Package, Test, Output string
}

// tally counts, per test, the runs it failed in, and keeps the output of
// each failure.
type tally struct {
	fails  map[string][]int
	output map[string][]string
}

func newTally() *tally { return &tally{fails: map[string][]int{}, output: map[string][]string{}} }

// read takes one run's events, and returns the tests that failed in it
// (a package that failed outside any test counts as its own name).
func (t *tally) read(r io.Reader, run int) []string {
	var failed []string
	lines := map[string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		key := e.Package
		if e.Test != "" {
			key += " " + e.Test
		}
		switch e.Action {
		case "output":
			lines[key] = append(lines[key], e.Output)
		case "fail":
			// A parent fails with its subtest: count the leaves, and a
			// package only when no test of it failed.
			if e.Test == "" && slices.ContainsFunc(failed, func(f string) bool { return strings.HasPrefix(f, e.Package+" ") }) {
				continue
			}
			if e.Test != "" && slices.ContainsFunc(failed, func(f string) bool { return strings.HasPrefix(f, key+"/") }) {
				continue
			}
			failed = append(failed, key)
			t.fails[key] = append(t.fails[key], run+1)
			t.output[key] = append(t.output[key], fmt.Sprintf("--- run %d:\n%s", run+1, strings.Join(lines[key], "")))
		}
	}
	return failed
}

// print writes the table of failures after runs runs; its exit code is 1
// when any test failed.
func (t *tally) print(runs int) int {
	if len(t.fails) == 0 {
		fmt.Printf("stress: %d runs, no test failed\n", runs)
		return 0
	}
	keys := make([]string, 0, len(t.fails))
	for k := range t.fails {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Print(strings.Join(t.output[k], ""))
	}
	fmt.Printf("stress: failures per test over %d runs\n", runs)
	for _, k := range keys {
		fmt.Printf("  %2d of %d  %s (runs %v)\n", len(t.fails[k]), runs, k, t.fails[k])
	}
	return 1
}
