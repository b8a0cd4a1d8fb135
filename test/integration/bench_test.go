//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench/workload"
	results "github.com/throttlebench/throttlebench/internal/report"
)

// BenchmarkHarnessFidelity compares the per-hash time the harness reports
// (run --cgroup current, one worker) with the bare bcrypt call in a plain
// timed loop, at the same cost (BenchmarkBcryptCost4 in internal/bench/workload is the
// same call under the benchmark framework). A ratio near 1 says the harness
// adds nothing measurable. Metrics: harness-ns/hash, bare-ns/hash, ratio.
func BenchmarkHarnessFidelity(b *testing.B) {
	const batch = 200
	w, err := workload.New("bcrypt", results.Params{}.With("cost", 4), batch)
	if err != nil {
		b.Fatal(err)
	}
	var harness, bareNs float64
	for b.Loop() {
		r := tbJSONB(b, "run", "--cgroup", "current", "--gomaxprocs", "1", "--batch", strconv.Itoa(batch), "--iterations", "5")
		harness = r.Stats.MeanMs * 1e6 / batch
		// Interleaved with the harness run, so both see the same machine.
		start := time.Now()
		for range batch * 5 {
			if err := w.Do(); err != nil {
				b.Fatal(err)
			}
		}
		bareNs = float64(time.Since(start).Nanoseconds()) / (batch * 5)
	}
	b.ReportMetric(harness, "harness-ns/hash")
	b.ReportMetric(bareNs, "bare-ns/hash")
	b.ReportMetric(harness/bareNs, "ratio")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkModelRatio reports measured/expected mean iteration duration of
// the CFS model for a grid of quotas and worker counts (root only).
func BenchmarkModelRatio(b *testing.B) {
	hier := needRoot(b)
	parent := testParent(b, hier)
	for _, cpus := range []string{"0.1", "0.5", "1"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("cpus=%s/workers=%d", cpus, workers), func(b *testing.B) {
				var r result
				for b.Loop() {
					r = tbJSONB(b, "run", "--cgroup", "create", "--parent", parent, "--cpus", cpus,
						"--workers", strconv.Itoa(workers), "--batch", "50", "--iterations", "5")
				}
				b.ReportMetric(r.Model.Ratio, "model-ratio")
				b.ReportMetric(r.Stats.MeanMs, "mean-ms")
				b.ReportMetric(r.Model.ExpectedMs, "expected-ms")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkHarnessShare is how much of a slice's CPU time the harness
// spends beside the workers, under the quota where it costs most: 1 ms per
// 10 ms period, where every microsecond of it delays the workload by ten
// (root only). bcrypt at --batch 50, 10 iterations, 0.1 CPUs per worker:
// one worker (the lone worker, unlocked) and two (locked to their
// threads, each preemption two thread hand-offs). Metrics: the share of
// the slice's CPU time that is not the workers' own threads' (the child's
// Go runtime: sysmon; with locked workers the hand-offs' other thread),
// the workers' voluntary context switches per iteration (a locked worker's
// hand-offs; none for the lone one), and ms of wall time per hash.
func BenchmarkHarnessShare(b *testing.B) {
	hier := needRoot(b)
	parent := testParent(b, hier)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var share, vol, perHash []float64
			for b.Loop() {
				o := tb(b, "run", "--cgroup", "create", "--parent", parent, "--period", "10ms",
					"--quota", fmt.Sprintf("%dms", workers), "--workers", strconv.Itoa(workers),
					"--batch", "50", "--iterations", "10", "--format", "json")
				require.Equal(b, 0, o.code, o.stderr)
				var r struct {
					Stats struct {
						N      int     `json:"n"`
						MeanMs float64 `json:"mean_ms"`
					} `json:"stats"`
					Workers []struct {
						CPUMs     float64 `json:"cpu_ms"`
						Voluntary uint64  `json:"ctx_switches_voluntary"`
					} `json:"workers"`
					Usage struct {
						CPUMs *float64 `json:"cpu_ms"`
					} `json:"usage"`
				}
				require.NoError(b, json.Unmarshal([]byte(o.stdout), &r))
				require.NotNil(b, r.Usage.CPUMs, "the slice's usage")
				var own float64
				var v uint64
				for _, w := range r.Workers {
					own += w.CPUMs
					v += w.Voluntary
				}
				share = append(share, 100*(1 - own / *r.Usage.CPUMs))
				vol = append(vol, float64(v)/float64(r.Stats.N))
				perHash = append(perHash, r.Stats.MeanMs/50)
			}
			b.ReportMetric(medianOf(share), "harness-%-of-slice")
			b.ReportMetric(medianOf(vol), "voluntary-switches/iteration")
			b.ReportMetric(medianOf(perHash), "ms/hash")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkLatencyFloor is the smallest response time `latency` reports on
// an idle machine in an unlimited slice it creates (root only): requests
// 5 ms apart that never queue, with no work and with 1 ms of it. It is the
// floor under every figure a latency run gives: timer wake-up, hand-off to
// a worker's thread and the clock readings. The in-process version without
// a slice is BenchmarkFloor in internal/bench. Metrics, in µs over the
// work: min, p50, p99, max.
func BenchmarkLatencyFloor(b *testing.B) {
	hier := needRoot(b)
	parent := testParent(b, hier)
	for _, work := range []time.Duration{0, time.Millisecond} {
		b.Run(fmt.Sprintf("work=%v", work), func(b *testing.B) {
			var l floorResult
			for b.Loop() {
				o := tb(b, "latency", "--cgroup", "create", "--parent", parent, "--arrivals", "fixed", "--rate", "200",
					"--work", work.String(), "--duration", "5s")
				require.Equal(b, 0, o.code, o.stderr)
				require.NoError(b, json.Unmarshal([]byte(o.stdout), &l))
			}
			over := func(v float64) float64 { return (v - float64(work)/float64(time.Millisecond)) * 1000 }
			b.ReportMetric(over(l.LatencyMs.Min), "min-µs-over-work")
			b.ReportMetric(over(l.LatencyMs.P50), "p50-µs-over-work")
			b.ReportMetric(over(l.LatencyMs.P99), "p99-µs-over-work")
			b.ReportMetric(over(l.LatencyMs.Max), "max-µs-over-work")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// floorResult is what the floor needs of latency's JSON.
type floorResult struct {
	LatencyMs struct {
		Min, P50, P99, Max float64
	} `json:"latency_ms"`
}

// BenchmarkTraceOverhead is what --trace costs a run: the same throttled
// configuration (spin at 0.5 CPUs, 20 iterations of 100 operations) with
// and without it, alternating which goes first, six pairs per op. Metrics:
// the median of the traced/untraced ratio of mean iteration times (the goal
// is under 1.01), the throttle events of a traced run, and their total
// against cpu.stat's (events/counter).
func BenchmarkTraceOverhead(b *testing.B) {
	hier := needRoot(b)
	parent := testParent(b, hier)
	plainArgs := []string{"run", "--cgroup", "create", "--parent", parent, "--workload", "spin", "--cpus", "0.5",
		"--batch", "100", "--iterations", "20", "--format", "json"}
	tracedArgs := append(append([]string{}, plainArgs...), "--trace")
	var ratios, agreement []float64
	events := 0
	for b.Loop() {
		for i := range 6 {
			var plain result
			var o outcome
			if i%2 == 0 {
				plain, o = tbJSONB(b, plainArgs...), tb(b, tracedArgs...)
			} else {
				o = tb(b, tracedArgs...)
				plain = tbJSONB(b, plainArgs...)
			}
			require.Equal(b, 0, o.code, o.stderr)
			var tr struct {
				Stats struct {
					MeanMs float64 `json:"mean_ms"`
				} `json:"stats"`
				traced
			}
			require.NoError(b, json.Unmarshal([]byte(o.stdout), &tr))
			ratios = append(ratios, tr.Stats.MeanMs/plain.Stats.MeanMs)
			if e := tr.ThrottleEvents; e != nil {
				events = e.Count
				if a := e.Agreement; a != nil && a.Ratio != nil {
					agreement = append(agreement, *a.Ratio)
				}
			}
		}
	}
	b.ReportMetric(medianOf(ratios), "traced/plain")
	b.ReportMetric(float64(events), "events/run")
	if len(agreement) > 0 {
		b.ReportMetric(medianOf(agreement), "events/counter")
	}
}

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
