//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkCompareGate measures the CI gate (compare, --judge code, its
// default threshold) on this machine as a shared runner: a CPU-bound
// command of about 100 ms of CPU (testdata/cpujob) under run --cpus 0.5,
// 10 iterations a side, beside a busy loop pinned to one CPU and then to
// each CPU. Per load it reports:
//   - false alarms in BENCH_GATE_PAIRS (100) pairs of the same command;
//   - regressions caught in BENCH_GATE_REGRESSIONS (20) pairs whose new
//     side hashes 5% more, as the code's (cause code);
//   - the least and the most CPU per iteration change read where it hashes
//     20% more, and how many pairs read 17–23%;
//   - in as many pairs whose new side runs beside another nice-0 loop on
//     every CPU (the machine busier, the code the same), how many failed
//     the gate and how many named the machine.
//
// Issue 47's done-when: at most 1 false alarm in 100, at least 19 of 20
// caught at 5%, every 20% pair 17–23%, and the busier machine passes and
// is named. The first run here (2026-11-29, 2 CPUs, 6.18) met the first
// and the last but two: beside one loop, 0 false alarms, 8 of 20 caught
// at 5% (the change read 4.6–6.6% against a 5% threshold), 20% read
// 15.0–23.8% (17 of 20 within); beside a loop on each CPU, 0, 3 of 20 and
// 18.4–19.5% (20 of 20); the busier machine failed no pair, and moved no
// wall time for the machine to be named by (the default parent's weight).
// The CPU time per iteration of back-to-back runs moved by 1.2% (sd) in
// steps of about 3.5% that last seconds: interleaving the sides' runs is
// what a 3% threshold needs (issue 47's note).
func BenchmarkCompareGate(b *testing.B) {
	needRoot(b)
	dir := b.TempDir()
	job := filepath.Join(dir, "cpujob")
	if out, err := exec.Command("go", "build", "-o", job, "./testdata/cpujob").CombinedOutput(); err != nil {
		b.Fatalf("build cpujob: %v\n%s", err, out)
	}
	const units = 30000 // about 100 ms of CPU here
	pairs, regressions := envInt(b, "BENCH_GATE_PAIRS", 100), envInt(b, "BENCH_GATE_REGRESSIONS", 20)
	n := 0
	run := func(u int) string {
		n++
		out := filepath.Join(dir, fmt.Sprintf("r%d.json", n))
		o, err := exec.Command(binary, "run", "--cpus", "0.5", "--iterations", "10", "-o", out, "--", job, strconv.Itoa(u)).CombinedOutput()
		if err != nil {
			b.Fatalf("run: %v\n%s", err, o)
		}
		return out
	}
	var log strings.Builder
	for range b.N {
		for _, load := range []string{"one", "all"} {
			stop := busyLoops(b, load)
			alarms := 0
			for range pairs {
				if g := gate(b, run(units), run(units)); g.Verdict == "regression" {
					alarms++
				}
			}
			caught := 0
			for range regressions {
				if g := gate(b, run(units), run(units*105/100)); g.Verdict == "regression" && g.Cause == "code" {
					caught++
				}
			}
			lo, hi, within := 1e9, -1e9, 0
			for range regressions {
				g := gate(b, run(units), run(units*120/100))
				pct := -1e9
				if g.CPU != nil && g.CPU.ChangePct != nil {
					pct = *g.CPU.ChangePct
				}
				lo, hi = min(lo, pct), max(hi, pct)
				if pct >= 17 && pct <= 23 {
					within++
				}
			}
			failed, named := 0, 0
			for range regressions {
				old := run(units)
				more := busyLoops(b, "all")
				g := gate(b, old, run(units))
				more()
				if g.Verdict == "regression" {
					failed++
				}
				if g.Cause == "machine" {
					named++
				}
			}
			stop()
			fmt.Fprintf(&log, "%s: A/A false alarms %d of %d; 5%% caught %d of %d; 20%% read %.1f–%.1f%% (%d of %d within 17–23%%); busier machine: %d failed, %d named the machine, of %d\n",
				load, alarms, pairs, caught, regressions, lo, hi, within, regressions, failed, named, regressions)
			b.ReportMetric(float64(alarms), "false-alarms-"+load)
			b.ReportMetric(float64(caught)/float64(regressions), "caught-5pct-"+load)
			b.ReportMetric(lo, "min-20pct-read-"+load)
			b.ReportMetric(hi, "max-20pct-read-"+load)
			b.ReportMetric(float64(failed), "busier-failed-"+load)
			b.ReportMetric(float64(named)/float64(regressions), "busier-named-"+load)
		}
	}
	b.Log("\n" + log.String())
}

// gated is the part of a compare row the gate's benchmark reads.
type gated struct {
	Verdict string `json:"verdict"`
	Cause   string `json:"cause"`
	CPU     *struct {
		ChangePct *float64 `json:"change_pct"`
	} `json:"cpu"`
}

// gate is compare's judgement of one pair (its one row).
func gate(b *testing.B, old, new string) gated {
	b.Helper()
	// The sides run the command with other arguments (more work): the
	// workload key, which names them, is left out of the match.
	out, err := exec.Command(binary, "compare", "--match", "-workload", "--format", "json", old, new).Output()
	if code := exitStatus(err); code != 0 && code != 3 {
		b.Fatalf("compare %s %s: exit %d: %v", old, new, code, err)
	}
	var res struct {
		Rows []gated `json:"rows"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Rows) != 1 {
		b.Fatalf("compare %s %s: %v: %s", old, new, err, out)
	}
	return res.Rows[0]
}

// busyLoops starts a nice-0 busy loop pinned to CPU 0 (one) or to each
// CPU (all), and returns what stops them.
func busyLoops(b *testing.B, load string) (stop func()) {
	cpus := []int{0}
	if load == "all" {
		cpus = cpus[:0]
		for c := range runtime.NumCPU() {
			cpus = append(cpus, c)
		}
	}
	var loops []*exec.Cmd
	for _, c := range cpus {
		l := exec.Command("taskset", "-c", strconv.Itoa(c), "sh", "-c", "while :; do :; done")
		if err := l.Start(); err != nil {
			b.Fatal(err)
		}
		loops = append(loops, l)
	}
	return func() {
		for _, l := range loops {
			l.Process.Kill()
			l.Wait()
		}
	}
}

func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a whole number above 0", name, s)
	}
	return n
}

// exitStatus is the exit code in err (0 for none, -1 where none came).
func exitStatus(err error) int {
	if e, ok := err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
