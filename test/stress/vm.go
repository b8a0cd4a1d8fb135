//go:build linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The VM lanes under stress (-vm, make test-stress with STRESS_VM=1): each
// guest booted again and again beside a busy loop on one host CPU, then on
// every host CPU, as a shared CI runner would have it. A guest's failures
// are read from its console: go test -v's "--- FAIL:" lines (the v2 and
// tracer guests), the systemd guest's "FAIL name: why" lines, and a lane
// that exited non-zero with none of them (a hang, a timeout) counts under
// its own name. Each lane's times come out as a distribution: its
// deadlines are set from them (test/vm/README.md).

// lane is one guest and the command that boots it from the repository's
// root.
type lane struct {
	name string
	cmd  []string
}

var vmLanes = []lane{
	{"v2", []string{"bash", "test/vm/test-v2.sh", "v2"}},
	{"tracer", []string{"bash", "test/vm/test-v2.sh", "tracer"}},
	{"systemd", []string{"bash", "test/systemd/test.sh", "driver"}},
}

// vmSetup is what the lanes need once (root): the busybox guest's kernel
// and qemu, and the systemd guest's image.
var vmSetup = [][]string{
	{"bash", "test/vm/setup.sh"},
	{"bash", "test/systemd/setup.sh"},
}

var (
	goFail      = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	goTimeout   = regexp.MustCompile(`^panic: test timed out after (\S+)`)
	shellFail   = regexp.MustCompile(`^FAIL (.+)$`)
	consolePref = regexp.MustCompile(`^\[ *[0-9.]+\] `)
)

// guestFailures are the failures one lane's console shows: the leaf tests
// that failed (a parent that failed with its subtest is left out), the
// systemd guest's failed checks (their reason cut off: it varies), and a
// go test that timed out, with the tests it was in.
func guestFailures(r io.Reader) []string {
	var failed []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := consolePref.ReplaceAllString(strings.TrimRight(sc.Text(), "\r"), "")
		switch {
		case goFail.MatchString(line):
			failed = append(failed, goFail.FindStringSubmatch(line)[1])
		case goTimeout.MatchString(line):
			failed = append(failed, "go test timed out after "+goTimeout.FindStringSubmatch(line)[1])
		case shellFail.MatchString(line):
			check := shellFail.FindStringSubmatch(line)[1]
			if i := strings.LastIndex(check, ": "); i > 0 {
				check = check[:i]
			}
			failed = append(failed, check)
		}
	}
	leaves := failed[:0:0]
	for _, f := range failed {
		parent := slices.ContainsFunc(failed, func(g string) bool { return strings.HasPrefix(g, f+"/") })
		if !parent && !slices.Contains(leaves, f) {
			leaves = append(leaves, f)
		}
	}
	return leaves
}

// busyCPUs are the CPUs a load puts busy loops on: "one" (CPU 0) or "all".
func busyCPUs(load string, ncpu int) []int {
	if load == "one" {
		return []int{0}
	}
	cpus := make([]int, ncpu)
	for i := range cpus {
		cpus[i] = i
	}
	return cpus
}

// runVM boots each lane n times under each load, one boot at a time, and
// prints every lane's failures per test and its times. Its exit code is 1
// when any boot failed.
func runVM(n int, loads []string, lanes []lane, logDir string, ncpu int, start func(cpu int) (*exec.Cmd, error), sigs <-chan os.Signal) int {
	for _, c := range vmSetup {
		if err := runQuiet(c); err != nil {
			fmt.Fprintf(os.Stderr, "stress: %s: %v\n", strings.Join(c, " "), err)
			return 1
		}
	}
	t := newTally()
	times := map[string][]time.Duration{}
	failedRuns := 0
	for _, load := range loads {
		var loops []*exec.Cmd
		for _, cpu := range busyCPUs(load, ncpu) {
			c, err := start(cpu)
			if err != nil {
				fmt.Fprintf(os.Stderr, "stress: start a busy loop on CPU %d: %v\n", cpu, err)
				stopLoops(loops)
				return 1
			}
			loops = append(loops, c)
		}
		fmt.Printf("stress: the VM lanes beside a busy loop on %s CPU(s) (pids %v)\n", load, pids(loops))
		for i := range n {
			for _, l := range lanes {
				key := fmt.Sprintf("%s/%s", l.name, load)
				began := time.Now()
				log := filepath.Join(logDir, fmt.Sprintf("%s-%s-%d.log", l.name, load, i+1))
				rc, err := runLogged(l.cmd, log, sigs)
				took := time.Since(began)
				if err != nil {
					stopLoops(loops)
					fmt.Fprintf(os.Stderr, "stress: %s: %v\n", key, err)
					t.print(i)
					return 130
				}
				times[key] = append(times[key], took)
				f, _ := os.Open(log)
				fails := guestFailures(f)
				f.Close()
				if rc != 0 && len(fails) == 0 {
					fails = []string{fmt.Sprintf("(the boot: exit %d)", rc)}
				}
				verdict := "green"
				if rc != 0 || len(fails) > 0 {
					failedRuns++
					verdict = "red: " + strings.Join(fails, ", ")
					for _, name := range fails {
						k := key + " " + name
						t.fails[k] = append(t.fails[k], i+1)
						t.output[k] = append(t.output[k], fmt.Sprintf("--- %s run %d: see %s\n", key, i+1, log))
					}
				}
				fmt.Printf("stress: %s run %d of %d in %v: %s\n", key, i+1, n, took.Round(time.Second), verdict)
			}
		}
		stopLoops(loops)
	}
	fmt.Println("stress: each lane's time per boot, seconds (min / median / max over its runs):")
	keys := make([]string, 0, len(times))
	for k := range times {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ts := slices.Clone(times[k])
		slices.Sort(ts)
		all := make([]string, len(times[k]))
		for i, d := range times[k] {
			all[i] = fmt.Sprintf("%.0f", d.Seconds())
		}
		fmt.Printf("  %-16s %4.0f / %4.0f / %4.0f  (%s)\n", k, ts[0].Seconds(), ts[len(ts)/2].Seconds(), ts[len(ts)-1].Seconds(), strings.Join(all, " "))
	}
	if rc := t.print(n * len(loads)); rc != 0 || failedRuns > 0 {
		return 1
	}
	return 0
}

// runLogged runs argv with its output in log (CI=true); a signal from
// sigs is passed on to it, and then the run ends with an error.
func runLogged(argv []string, log string, sigs <-chan os.Signal) (int, error) {
	f, err := os.Create(log)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = f
	cmd.Stderr = f
	cmd.Env = append(os.Environ(), "CI=true")
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case s := <-sigs:
		cmd.Process.Signal(s)
		<-done
		return 0, fmt.Errorf("stopped by %v", s)
	case err := <-done:
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), nil
			}
			return 0, err
		}
		return 0, nil
	}
}

func runQuiet(argv []string) error {
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

func stopLoops(loops []*exec.Cmd) {
	for _, c := range loops {
		c.Process.Kill()
		c.Wait()
	}
}

func pids(loops []*exec.Cmd) []int {
	var p []int
	for _, c := range loops {
		p = append(p, c.Process.Pid)
	}
	return p
}
