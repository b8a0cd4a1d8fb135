//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkCommandPeers runs the same commands under `throttlebench run
// --cgroup current -- CMD` and `hyperfine -N` (no shell), taking turns,
// three rounds, and reports the median of each one's mean duration and
// their ratio; and for `true` each harness's own cost per run: the time a
// run takes the harness beyond the run it measures, from two run counts
// (the difference in elapsed time less the difference in measured time,
// over the difference in runs), so that start-up is not in it. Both time
// a run from before its fork to after its wait, so `true`'s duration is
// itself each harness's fork, exec and wait.
func BenchmarkCommandPeers(b *testing.B) {
	hf := peer(b, "hyperfine")
	if hf == "" {
		b.Skip("hyperfine is not installed")
	}
	dir := b.TempDir()
	cmds := []struct {
		name string
		argv []string
		runs int
	}{
		{"true", []string{"true"}, 200},
		{"python3-pass", []string{"python3", "-c", "pass"}, 20},
		{"sleep-0.1", []string{"sleep", "0.1"}, 10},
		{"python3-loop-1s", []string{"python3", "-c", "for i in range(15_000_000): pass"}, 5},
	}
	var out strings.Builder
	fmt.Fprintf(&out, "\n%-16s %12s %12s %7s\n", "command", "ours ms", "hyperfine ms", "ratio")
	for range b.N {
		for _, c := range cmds {
			var ours, theirs []float64
			for range 3 {
				o, _ := benchOurs(b, c.argv, c.runs)
				h, _ := benchHyperfine(b, hf, dir, c.argv, c.runs)
				ours, theirs = append(ours, o), append(theirs, h)
			}
			o, h := medianOf(ours), medianOf(theirs)
			fmt.Fprintf(&out, "%-16s %12.3f %12.3f %7.3f   (ours %v, hyperfine's %v)\n", c.name, o, h, o/h, ours, theirs)
			b.ReportMetric(o/h, c.name+"-ours/hyperfine")
		}
		// The cost per run beyond the run: 100 and 600 runs of true.
		cost := func(f func(n int) (float64, time.Duration)) float64 {
			m1, e1 := f(100)
			m2, e2 := f(600)
			measured := (float64(603)*m2 - float64(103)*m1) * 1000 // µs
			return (float64(e2.Microseconds()-e1.Microseconds()) - measured) / 500
		}
		var oc, hc []float64
		for range 3 {
			oc = append(oc, cost(func(n int) (float64, time.Duration) { return benchOurs(b, []string{"true"}, n) }))
			hc = append(hc, cost(func(n int) (float64, time.Duration) { return benchHyperfine(b, hf, dir, []string{"true"}, n) }))
		}
		fmt.Fprintf(&out, "cost per run beyond it (true): ours %.1f µs, hyperfine's %.1f µs (ours %.1f, hyperfine's %.1f)\n", medianOf(oc), medianOf(hc), oc, hc)
		b.ReportMetric(medianOf(oc), "ours-cost-µs/run")
		b.ReportMetric(medianOf(hc), "hyperfine-cost-µs/run")
	}
	b.Log(out.String())
}

// benchOurs is run -- CMD's mean duration (ms) and its process's elapsed time.
func benchOurs(b *testing.B, argv []string, runs int) (float64, time.Duration) {
	args := append([]string{"run", "--cgroup", "current", "--warmup", "3", "--iterations", fmt.Sprint(runs), "--format", "json", "--"}, argv...)
	start := time.Now()
	raw, err := exec.Command(binary, args...).Output()
	elapsed := time.Since(start)
	if err != nil {
		b.Fatalf("throttlebench %v: %v", args, err)
	}
	var r struct {
		Stats struct {
			MeanMs float64 `json:"mean_ms"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		b.Fatal(err)
	}
	return r.Stats.MeanMs, elapsed
}

// benchHyperfine is hyperfine -N's mean duration (ms) and its process's
// elapsed time.
func benchHyperfine(b *testing.B, hf, dir string, argv []string, runs int) (float64, time.Duration) {
	export := filepath.Join(dir, "hf.json")
	// -N splits the command line as a shell would, without one: quote
	// what holds spaces.
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = a
		if strings.ContainsAny(a, " ()") {
			words[i] = "'" + a + "'"
		}
	}
	args := []string{"-N", "--warmup", "3", "--runs", fmt.Sprint(runs), "--export-json", export, "--style", "none", strings.Join(words, " ")}
	start := time.Now()
	if out, err := exec.Command(hf, args...).CombinedOutput(); err != nil {
		b.Fatalf("hyperfine %v: %v\n%s", args, err, out)
	}
	elapsed := time.Since(start)
	raw, err := os.ReadFile(export)
	if err != nil {
		b.Fatal(err)
	}
	var r struct {
		Results []struct {
			Mean float64 `json:"mean"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Results) == 0 {
		b.Fatalf("hyperfine's JSON: %v", err)
	}
	return r.Results[0].Mean * 1000, elapsed
}
