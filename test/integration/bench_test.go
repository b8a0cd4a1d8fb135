//go:build linux

package integration

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/throttlebench/throttlebench/internal/workload"
)

// BenchmarkHarnessFidelity compares the per-hash time the harness reports
// (run --cgroup current, one worker) with the bare bcrypt call in a plain
// timed loop, at the same cost (BenchmarkBcryptCost4 in internal/workload is the
// same call under the benchmark framework). A ratio near 1 says the harness
// adds nothing measurable. Metrics: harness-ns/hash, bare-ns/hash, ratio.
func BenchmarkHarnessFidelity(b *testing.B) {
	const batch = 200
	w, err := workload.New("bcrypt", workload.Args{"cost": 4})
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
