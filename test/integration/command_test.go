//go:build linux

package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commandResult is what these tests read of a run -- CMD result, besides
// result's.
type commandResult struct {
	result
	Command  []string `json:"-"`
	Workload string   `json:"-"`
	Counters []struct {
		CPUMs       float64  `json:"cpu_ms"`
		NrThrottled *uint64  `json:"nr_throttled"`
		ThrottledMs *float64 `json:"throttled_ms"`
	} `json:"-"`
}

// withJSON puts --format json before the --: after it, it would be the
// command's.
func withJSON(args []string) []string {
	i := slices.Index(args, "--")
	return slices.Concat(args[:i], []string{"--format", "json"}, args[i:])
}

func commandJSON(t *testing.T, args ...string) commandResult {
	t.Helper()
	o := tb(t, withJSON(args)...)
	require.Equal(t, 0, o.code, "throttlebench failed: %s", o.stderr)
	var r commandResult
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r.result), o.stdout)
	var c struct {
		Config struct {
			Workload string   `json:"workload"`
			Command  []string `json:"command"`
		} `json:"config"`
		Counters []struct {
			CPUMs       float64  `json:"cpu_ms"`
			NrThrottled *uint64  `json:"nr_throttled"`
			ThrottledMs *float64 `json:"throttled_ms"`
		} `json:"counters_per_iteration"`
	}
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &c))
	r.Command, r.Workload, r.Counters = c.Config.Command, c.Config.Workload, c.Counters
	return r
}

// Programs nobody here wrote, CPU-bound, at 0.1 CPU take about ten times
// their unconstrained time, and the counters and the model say why.
// Measured here (2 vCPUs, v1, busy with other work): python3's loop of
// 500,000, 106.8 ms unlimited, 1248.7 ms at 0.1 CPU (11.7×, 25 of 25
// periods throttled, model 1.01); the pipeline 40.3 → 597.2 ms (14.8×,
// model 1.06); the Go program 99.8 → 1097.3 ms (11.0×, model 1.03). More
// than 10×: a program uses more CPU time under the quota than without
// (python3's loop of 10^6: 118 → 174 ms of CPU a run), which the model,
// working from the CPU time, accounts for. The bounds are wide for a
// shared machine.
//
// Against the unlimited run the ratio is a floor, not a figure: that
// run's wall time is CPU time plus waiting (fork and exec, the pipe's
// stages for each other, and the CPU behind whatever runs beside). In a
// clean-clone CI run the pipeline came out 5.6× (80.0 ms unlimited, 449.1
// at 0.1 CPU), under the 6× this test first held. So make test holds
// directions and orders of magnitude only (issue 32): slower than the
// fastest unlimited run by more than 2×, about 10 ms of wall per ms of CPU
// at 0.1 CPU (between 3 and 30), the model's ratio between 0.5 and 2.
func TestCommandUnderQuota(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	programs := map[string][]string{
		"shell pipeline": {"sh", "-c", sized(t, 100*time.Millisecond, 200000, func(n int) string {
			return fmt.Sprintf("seq 1 %d | sort -rn | tail -n 1 >/dev/null", n)
		})},
	}
	if _, err := exec.LookPath("python3"); err == nil {
		programs["python3 loop"] = []string{"python3", "-c", "for i in range(500_000): pass"}
	} else {
		t.Log("python3 is not on PATH here (the VM's busybox guest): the Python loop is left out")
	}
	if gobin, err := exec.LookPath("go"); err == nil {
		dir := t.TempDir()
		src := filepath.Join(dir, "main.go")
		require.NoError(t, os.WriteFile(src, []byte(`package main

func main() {
	x := uint64(1)
	for i := 0; i < 60_000_000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	if x == 0 {
		println(x)
	}
}
`), 0o644))
		bin := filepath.Join(dir, "spin")
		cmd := exec.Command(gobin, "build", "-o", bin, src)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "GO111MODULE=off", "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		programs["go program"] = []string{bin}
	} else {
		t.Log("go is not on PATH here: the Go program is left out")
	}
	for name, argv := range programs {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			free := commandJSON(t, append([]string{"run", "--parent", parent, "--iterations", "3", "--"}, argv...)...)
			assert.Equal(t, "command", free.Workload)
			assert.Equal(t, argv, free.Command, "the command line as given")
			lim := commandJSON(t, append([]string{"run", "--parent", parent, "--cpus", "0.1", "--iterations", "2", "--"}, argv...)...)
			require.NotEmpty(t, free.DurationsMs)
			fastest := slices.Min(free.DurationsMs)
			ratio := lim.Stats.MeanMs / fastest
			require.NotNil(t, lim.Throttling.NrThrottled)
			require.Len(t, lim.Counters, lim.Stats.N)
			var cpuMs float64
			for _, c := range lim.Counters {
				cpuMs += c.CPUMs
			}
			perCPU := lim.Stats.MeanMs * float64(lim.Stats.N) / cpuMs
			t.Logf("%s: %.1f ms unlimited (fastest of %d; mean %.1f), %.1f ms at 0.1 CPU: %.1f×; %.1f ms of wall per ms of CPU; throttled %d of %d periods, model %.2f",
				name, fastest, free.Stats.N, free.Stats.MeanMs, lim.Stats.MeanMs, ratio, perCPU, *lim.Throttling.NrThrottled, *lim.Throttling.NrPeriods, lim.Model.Ratio)
			// Directions and orders of magnitude, which hold however
			// busy the machine (issue 32): a neighbour's load slows the
			// unlimited side and stretches the limited one, and set the
			// earlier bounds (6×, then 4×; 10±3 wall per CPU ms; model
			// 1±0.35) at the worst runs seen. The exact figures are make
			// bench's (BenchmarkHarness and BenchmarkCommandPeers).
			assert.Greater(t, ratio, 2.0, "a tenth of a CPU is slower than all of them")
			assert.Less(t, ratio, 100.0)
			assert.Greater(t, perCPU, 3.0, "at 0.1 CPU a millisecond of CPU costs about ten of wall")
			assert.Less(t, perCPU, 30.0, "at 0.1 CPU a millisecond of CPU costs about ten of wall")
			assert.Greater(t, *lim.Throttling.NrThrottled, uint64(0), "the kernel throttled it")
			assert.Greater(t, lim.Model.Ratio, 0.5, "the model, from its CPU time at 0.1 CPU, expects its duration")
			assert.Less(t, lim.Model.Ratio, 2.0, "the model, from its CPU time at 0.1 CPU, expects its duration")
			// Per run: its CPU time and the throttles the counters saw
			// over it, every run throttled at 0.1 CPU.
			for i, c := range lim.Counters {
				require.NotNil(t, c.NrThrottled)
				assert.Positive(t, *c.NrThrottled, "run %d", i)
				assert.Positive(t, c.CPUMs, "run %d", i)
			}
		})
	}
}

// pidsWith lists the processes running sleep marker (not throttlebench,
// whose own command line holds it too).
func pidsWith(marker string) []int {
	return pidsWhere("cmdline", func(cmdline []byte) bool { return bytes.HasPrefix(cmdline, []byte("sleep\x00"+marker+"\x00")) })
}

// pidsWhere lists the live processes whose /proc/PID/file (cmdline or
// environ: NUL-separated, as /proc has them) match accepts.
func pidsWhere(file string, match func(content []byte) bool) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/" + file)
		if match(b) && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// noneLeft waits a moment for marker's processes to go, and fails the test
// (killing them) when they do not.
func noneLeft(t *testing.T, marker string) {
	t.Helper()
	noProcessLeft(t, "processes", marker, func() []int { return pidsWith(marker) })
}

// noProcessLeft waits up to 3 s for list to come back empty once
// throttlebench has exited, and fails the test (killing what is left, by
// PID: processes the test started) when it does not.
func noProcessLeft(t *testing.T, what, marker string, list func() []int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for len(list()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := list(); len(left) > 0 {
		for _, p := range left {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("%s left running: %v (%s)", what, left, marker)
	}
}

// Every fault leaves no slice (testParent checks), no process of the
// command and no half-written file.
func TestCommandFaults(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	out := filepath.Join(t.TempDir(), "result.json")

	t.Run("grandchild in its group", func(t *testing.T) {
		r := commandJSON(t, "run", "--parent", parent, "--iterations", "2", "--", "sh", "-c", "sleep 301.25 & exit 0")
		assert.NotContains(t, r.Warnings.text(), "left")
		noneLeft(t, "301.25")
	})
	t.Run("daemon out of its group", func(t *testing.T) {
		r := commandJSON(t, "run", "--parent", parent, "--iterations", "2", "--", "sh", "-c", "setsid sleep 302.25 </dev/null >/dev/null 2>&1 & sleep 0.2")
		assert.Contains(t, r.Warnings.text(), "left 3 processes running in the slice", "one per run, warm-up included")
		noneLeft(t, "302.25")
	})
	t.Run("crash", func(t *testing.T) {
		o := tb(t, withJSON([]string{"run", "--parent", parent, "-o", out, "--", "sh", "-c", "echo dying >&2; kill -SEGV $$"})...)
		assert.Equal(t, 1, o.code)
		assert.Contains(t, o.stderr, "warm-up run 1 of 1: ended by signal: segmentation fault; its stderr ends:\n    dying\n")
		assert.NoFileExists(t, out)
	})
	t.Run("ignore failure", func(t *testing.T) {
		r := commandJSON(t, "run", "--parent", parent, "--iterations", "2", "--ignore-failure", "--", "sh", "-c", "exit 7")
		assert.Equal(t, 2, r.Stats.N)
	})
	t.Run("not found", func(t *testing.T) {
		o := tb(t, withJSON([]string{"run", "--parent", parent, "--", "no-such-program-here"})...)
		assert.Equal(t, 2, o.code)
		assert.Contains(t, o.stderr, `invalid command "no-such-program-here"`)
	})
	t.Run("timeout", func(t *testing.T) {
		start := time.Now()
		o := tb(t, withJSON([]string{"run", "--parent", parent, "--timeout", "1s", "-o", out, "--", "sleep", "303.25"})...)
		assert.Equal(t, 1, o.code, o.stderr)
		assert.Contains(t, o.stderr, "--timeout 1s")
		assert.Less(t, time.Since(start), 10*time.Second)
		assert.NoFileExists(t, out)
		noneLeft(t, "303.25")
	})
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			marker := "304." + strconv.Itoa(int(sig))
			cmd := exec.Command(binary, "run", "--parent", parent, "-o", out, "--", "sleep", marker)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			deadline := time.Now().Add(10 * time.Second)
			for len(pidsWith(marker)) == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			require.NotEmpty(t, pidsWith(marker), "the command started")
			require.NoError(t, cmd.Process.Signal(sig))
			err := cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			switch sig {
			case syscall.SIGINT:
				assert.Equal(t, 130, ee.ExitCode(), stderr.String())
			case syscall.SIGTERM:
				assert.Equal(t, 143, ee.ExitCode(), stderr.String())
			case syscall.SIGKILL:
				// Nothing of ours could clean up: the child and the command
				// die with their parents (parent-death signals), and the
				// stale slice is cleanup's.
				noneLeft(t, marker)
				o := tb(t, "cleanup", "--parent", parent)
				assert.Equal(t, 0, o.code, o.stderr)
			}
			noneLeft(t, marker)
			assert.NoFileExists(t, out)
		})
	}
}

// --gomaxprocs floor and ceil are the command's GOMAXPROCS, computed from
// the slice's quota: at 1.5 CPUs automaxprocs' floor gives 1, Go 1.25's
// ceil 2; runtime leaves the environment as it was.
func TestCommandGOMAXPROCS(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	for rule, want := range map[string]string{"floor": "1", "ceil": "2", "3": "3", "runtime": os.Getenv("GOMAXPROCS")} {
		t.Run(rule, func(t *testing.T) {
			r := commandJSON(t, "run", "--parent", parent, "--cpus", "1.5", "--iterations", "1", "--warmup", "0", "--gomaxprocs", rule,
				"--", "sh", "-c", `test "$GOMAXPROCS" = "`+want+`" || { echo "GOMAXPROCS=$GOMAXPROCS" >&2; exit 1; }`)
			if rule != "runtime" {
				assert.Equal(t, want, strconv.Itoa(r.Config.GOMAXPROCS))
			}
		})
	}
}

// cpuLoop is a shell command line that burns about 50 ms of CPU: python3's
// loop where there is one, else the shell's own (the VM's busybox guest
// has no python3), sized on this machine.
func cpuLoop(t *testing.T) string {
	if _, err := exec.LookPath("python3"); err == nil {
		return "python3 -c 'for i in range(300_000): pass'"
	}
	return sized(t, 50*time.Millisecond, 10000, func(n int) string {
		return fmt.Sprintf("i=0; while [ $i -lt %d ]; do i=$((i+1)); done", n)
	})
}

// sized is the command line line(n) with n scaled from n0 so that one run
// takes about target unconstrained here: the same test on a host and in
// the VM's emulated CPU (several times slower) takes about as long. Never
// more than n0 × 10.
func sized(t *testing.T, target time.Duration, n0 int, line func(n int) string) string {
	t.Helper()
	start := time.Now()
	out, err := exec.Command("sh", "-c", line(n0)).CombinedOutput()
	require.NoError(t, err, "%s", out)
	took := time.Since(start)
	n := int(float64(n0) * float64(target) / float64(max(took, time.Millisecond)))
	n = min(max(n, 100), 10*n0)
	t.Logf("%s: %v here, sized to %d", line(n0), took, n)
	return line(n)
}

// tagged lists the live processes whose environment holds tag.
func tagged(tag string) []int {
	return pidsWhere("environ", func(env []byte) bool { return bytes.Contains(env, []byte(tag+"\x00")) })
}

// A small soak of commands: a run whose command forks a background
// grandchild and a daemon (setsid) and burns CPU under a quota, ended at a random moment by
// SIGINT, SIGTERM, SIGKILL (then cleanup) or --timeout. Every trial
// leaves no slice (testParent), no process of the run (throttlebench, its
// workload child, the command, the grandchild: all carry the trial's tag
// in their environment) and no output file; a signal before the handler
// or after the work may let the run end by it or succeed, and a run that
// succeeds has written its whole result.
func TestCommandSoak(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	faults := []string{"SIGINT", "SIGTERM", "SIGKILL", "timeout"}
	loop := cpuLoop(t)
	tally := map[string]int{}
	for i := range 12 {
		fault := faults[i%len(faults)]
		at := time.Duration(rng.IntN(1500)) * time.Millisecond
		tag := fmt.Sprintf("TB_CMD_SOAK=%d-%d", seed, i)
		out := filepath.Join(t.TempDir(), "r.json")
		args := []string{"run", "--parent", parent, "--cpus", "0.5", "--warmup", "2", "--iterations", "4", "--format", "json", "-o", out}
		if fault == "timeout" {
			args = append(args, "--timeout", at.String())
		}
		args = append(args, "--", "sh", "-c", "sleep 30 & setsid sleep 31 </dev/null >/dev/null 2>&1 & "+loop)
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), tag)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		switch fault {
		case "timeout":
			err = <-done
		default:
			sig := map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM, "SIGKILL": syscall.SIGKILL}[fault]
			select {
			case err = <-done:
			case <-time.After(at):
				cmd.Process.Signal(sig)
				err = <-done
			}
		}
		outcome := "exit 0"
		if ee, ok := err.(*exec.ExitError); ok {
			outcome = ee.ProcessState.String()
		}
		cleaned := "" // cleanup's report, after a SIGKILL
		if fault == "SIGKILL" {
			// The parent could not clean up: its workload child, told by
			// its parent-death signal (SIGTERM for a command), kills what
			// is in its slice and goes; the empty slice is cleanup's.
			deadline := time.Now().Add(3 * time.Second)
			for len(tagged(tag)) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			o := tb(t, "cleanup", "--parent", parent)
			if o.code != 0 {
				t.Errorf("trial %d: cleanup: %s", i, o.stderr)
			}
			cleaned = "; cleanup said: " + strings.TrimSpace(o.stdout)
		}
		deadline := time.Now().Add(3 * time.Second)
		for len(tagged(tag)) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if left := tagged(tag); len(left) > 0 {
			for _, p := range left {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Errorf("trial %d (%s at %v, %s): processes left: %v", i, fault, at, outcome, left)
		}
		if left := subdirs(t, parent); len(left) > 0 {
			t.Errorf("trial %d (%s at %v, %s): slices left: %v%s", i, fault, at, outcome, left, cleaned)
		}
		if outcome == "exit 0" {
			var r result
			b, rerr := os.ReadFile(out)
			if assert.NoError(t, rerr, "trial %d succeeded without its file", i) {
				assert.NoError(t, json.Unmarshal(b, &r), "trial %d: a whole result", i)
			}
		} else {
			assert.NoFileExists(t, out, "trial %d (%s): no half-written file", i, fault)
		}
		tally[fault+": "+outcome]++
	}
	t.Logf("outcomes: %v", tally)
}

// --show-output: the command's stdout and stderr on throttlebench's
// stderr, its stdout the result alone; without it both are discarded.
func TestCommandShowOutput(t *testing.T) {
	for _, show := range []bool{true, false} {
		args := []string{"run", "--cgroup", "current", "--iterations", "1", "--warmup", "0", "--format", "json"}
		if show {
			args = append(args, "--show-output")
		}
		o := tb(t, append(args, "--", "sh", "-c", "echo to-stdout; echo to-stderr >&2")...)
		require.Equal(t, 0, o.code, o.stderr)
		var r result
		require.NoError(t, json.Unmarshal([]byte(o.stdout), &r), "stdout is the result alone: %s", o.stdout)
		for _, s := range []string{"to-stdout", "to-stderr"} {
			assert.Equal(t, show, strings.Contains(o.stderr, s), "show %v: %s in %q", show, s, o.stderr)
		}
	}
}

// --trace ties throttles to a command's runs as to any iterations, and
// splits each run's time over the command's threads.
func TestCommandTrace(t *testing.T) {
	hier := needRoot(t)
	needTrace(t)
	parent := testParent(t, hier)
	o := tb(t, "run", "--parent", parent, "--cpus", "0.2", "--iterations", "3", "--trace", "--format", "json",
		"--", "sh", "-c", cpuLoop(t))
	require.Equal(t, 0, o.code, o.stderr)
	var r struct {
		PerIteration []float64 `json:"throttled_ms_per_iteration"`
		Breakdown    *breakdown
		Warnings     warnings
	}
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r))
	require.Len(t, r.PerIteration, 3)
	for i, ms := range r.PerIteration {
		// A run of about 60 ms of CPU at 0.2 CPU waits about 240 ms
		// throttled (measured: 400–470 ms with python3's startup).
		assert.Greater(t, ms, 50.0, "run %d", i)
	}
	if b := r.Breakdown; assert.NotNil(t, b, "warnings %q", r.Warnings) {
		assert.Equal(t, "command", b.Threads)
		assert.Equal(t, 3, b.Count)
		assert.Zero(t, b.Unknown)
		assert.Positive(t, b.HeldMs.P50, "every run held, as its throttled time says")
	}
}
