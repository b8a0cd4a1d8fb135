//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// BenchmarkCompareGate measures the CI gate as docs/ci.md runs it
// (compare, --judge code, its default thresholds) on this machine as a
// shared runner: a CPU-bound command of about 100 ms of CPU
// (testdata/cpujob) under run --cpus 0.5, base and change alternating in
// five rounds of 2 iterations (10 a side, each side's rounds pooled),
// beside a busy loop pinned to one CPU and then to each CPU. Per load it
// reports:
//   - false alarms in BENCH_GATE_PAIRS (100) pairs of the same command;
//   - regressions caught in BENCH_GATE_REGRESSIONS (20) pairs whose new
//     side hashes 5% more, as the code's (cause code);
//   - the least and the most CPU per iteration change read where it hashes
//     20% more, and how many pairs read 17–23%;
//   - in as many pairs whose new side's rounds run beside another nice-0
//     loop on every CPU (the machine busier, the code the same), how many
//     failed the gate and how many named the machine (cause machine, or a
//     machines_differ warning where the wall time did not move).
//
// Issue 47's done-when: at most 1 false alarm in 100, at least 19 of 20
// caught at 5%, every 20% pair 17–23%, and the busier machine passes and
// is named. The first run (2026-11-29, 2 CPUs, 6.18; sides one after the
// other, 10 iterations each, one threshold of 5%) met the first and the
// last but two: beside one loop, 0 false alarms, 8 of 20 caught at 5%,
// 20% read 15.0–23.8%; beside a loop on each CPU, 0, 3 of 20 and
// 18.4–19.5%. The CPU time per iteration of runs one after the other moved
// in steps of about 3.5% that last seconds: hence the rounds, and
// --cpu-threshold's 3%. In rounds (2026-11-29, while other work loaded the
// machine 5–16 deep besides): beside one loop, 0 false alarms in 100 (the
// A/A CPU change -0.91% to +1.13%, sd 0.30%), 20 of 20 caught at 5%, 20%
// read 17.2–20.5%; beside a loop on each CPU, 0 in 100 (-1.73% to +1.30%,
// sd 0.55%), 20 of 20, 18.1–20.0%; the busier machine failed no pair.
// Again on the quiet machine (BENCH_GATE_PAIRS=1): 20 of 20 caught and
// 18.5–19.9% beside one loop, 20 of 20 and 18.9–19.6% beside a loop on
// each; the busier machine failed none and was named in 20 of 20 beside
// one loop (other load 1.02 → 1.51 CPUs) but in 5 of 20 beside a loop on
// each CPU, where the added loops changed neither the others' CPU time
// (1.51 → 1.50: the CPUs were full already) nor, under the default
// parent's weight, the work's waits: nothing moved for it to name.
func BenchmarkCompareGate(b *testing.B) {
	needRoot(b)
	dir := b.TempDir()
	job := filepath.Join(dir, "cpujob")
	if out, err := exec.Command("go", "build", "-o", job, "./testdata/cpujob").CombinedOutput(); err != nil {
		b.Fatalf("build cpujob: %v\n%s", err, out)
	}
	const (
		units  = 30000 // about 100 ms of CPU here
		rounds = 5
	)
	pairs, regressions := envInt(b, "BENCH_GATE_PAIRS", 100), envInt(b, "BENCH_GATE_REGRESSIONS", 20)
	n := 0
	// pair measures base and change units in alternating rounds, each
	// side's results appended to one file as docs/ci.md does; busier runs
	// each round of the change beside more load.
	pair := func(base, change int, busier bool) gated {
		n++
		files := [2]string{filepath.Join(dir, fmt.Sprintf("p%d-base.json", n)), filepath.Join(dir, fmt.Sprintf("p%d-change.json", n))}
		for range rounds {
			for side, u := range []int{base, change} {
				stop := func() {}
				if busier && side == 1 {
					stop = busyLoops(b, "all")
				}
				o, err := exec.Command(binary, "run", "--cpus", "0.5", "--iterations", "2", "--format", "json", "--", job, strconv.Itoa(u)).Output()
				stop()
				if err != nil {
					b.Fatalf("run: %v\n%s", err, o)
				}
				f, err := os.OpenFile(files[side], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					b.Fatal(err)
				}
				_, err = f.Write(o)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		return gate(b, files[0], files[1])
	}
	var log strings.Builder
	for range b.N {
		for _, load := range []string{"one", "all"} {
			stop := busyLoops(b, load)
			alarms := 0
			var aa []float64
			for range pairs {
				g := pair(units, units, false)
				if g.Verdict == "regression" {
					alarms++
				}
				aa = append(aa, g.cpuPct())
			}
			caught := 0
			for range regressions {
				if g := pair(units, units*105/100, false); g.Verdict == "regression" && g.Cause == "code" {
					caught++
				}
			}
			lo, hi, within := 1e9, -1e9, 0
			for range regressions {
				pct := pair(units, units*120/100, false).cpuPct()
				lo, hi = min(lo, pct), max(hi, pct)
				if pct >= 17 && pct <= 23 {
					within++
				}
			}
			failed, named := 0, 0
			var others [2][]float64 // the sides' other load, where measured
			for range regressions {
				g := pair(units, units, true)
				if g.Verdict == "regression" {
					failed++
				}
				if g.Cause == "machine" || g.has("machines_differ") {
					named++
				}
				if o, n := g.Old.Machine.OthersCPUs, g.New.Machine.OthersCPUs; o != nil && n != nil {
					others[0], others[1] = append(others[0], *o), append(others[1], *n)
				}
			}
			stop()
			slices.Sort(aa)
			fmt.Fprintf(&log, "%s: A/A false alarms %d of %d (CPU change %.2f%% to %.2f%%, sd %.2f%%); 5%% caught %d of %d; 20%% read %.1f–%.1f%% (%d of %d within 17–23%%); busier machine: %d failed, %d named the machine, of %d (other load %.2f → %.2f CPUs, means)\n",
				load, alarms, pairs, aa[0], aa[len(aa)-1], stat.StdDev(aa, nil), caught, regressions, lo, hi, within, regressions, failed, named, regressions,
				stat.Mean(others[0], nil), stat.Mean(others[1], nil))
			b.ReportMetric(float64(alarms), "false-alarms-"+load)
			b.ReportMetric(stat.StdDev(aa, nil), "aa-cpu-sd-pct-"+load)
			b.ReportMetric(float64(caught)/float64(regressions), "caught-5pct-"+load)
			b.ReportMetric(lo, "min-20pct-read-"+load)
			b.ReportMetric(hi, "max-20pct-read-"+load)
			b.ReportMetric(float64(failed), "busier-failed-"+load)
			b.ReportMetric(float64(named)/float64(regressions), "busier-named-"+load)
		}
	}
	b.Log("\n" + log.String())
}

// gated is the part of compare's answer the gate's benchmark reads: its
// one row, and the kinds of its warnings.
type gated struct {
	Verdict string `json:"verdict"`
	Cause   string `json:"cause"`
	CPU     *struct {
		ChangePct *float64 `json:"change_pct"`
	} `json:"cpu"`
	Old, New struct {
		Machine struct {
			OthersCPUs *float64 `json:"others_cpus"`
		} `json:"machine"`
	}
	kinds []string
}

// cpuPct is the CPU per iteration change; NaN where compare had none.
func (g gated) cpuPct() float64 {
	if g.CPU == nil || g.CPU.ChangePct == nil {
		return math.NaN()
	}
	return *g.CPU.ChangePct
}

func (g gated) has(kind string) bool { return slices.Contains(g.kinds, kind) }

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
		Rows     []gated `json:"rows"`
		Warnings []struct {
			Kind string `json:"kind"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Rows) != 1 {
		b.Fatalf("compare %s %s: %v: %s", old, new, err, out)
	}
	g := res.Rows[0]
	for _, w := range res.Warnings {
		g.kinds = append(g.kinds, w.Kind)
	}
	return g
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
