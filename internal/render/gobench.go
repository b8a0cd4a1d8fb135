package render

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload"
	"github.com/throttlebench/throttlebench/internal/report"
)

// WriteGobench writes reports in the Go benchmark format, one line per
// measured iteration, so that benchstat can compare runs:
//
//	BenchmarkThrottle/cpus=0.5/period=100ms/burst=0s/workers=2/gomaxprocs=2/cost=4/batch=50  1  52300000 ns/op  0.12 throttled-frac  1.03 model-ratio
//
// The configuration lines before them (goos, cpu, kernel, …) are what
// benchstat shows as the context of a comparison.
func WriteGobench(w io.Writer, reports []*report.Report) error {
	var b strings.Builder
	if len(reports) > 0 {
		h := reports[0].Host
		fmt.Fprintf(&b, "goos: linux\ngoarch: %s\ncpu: %s\nkernel: %s\ngo: %s\n", runtime.GOARCH, h.CPUModel, h.Kernel, h.GoVersion)
	}
	for _, r := range reports {
		name := GobenchName(r)
		for _, d := range r.DurationsMs {
			fmt.Fprintf(&b, "%s\t1\t%.0f ns/op", name, d*1e6)
			if f := r.Throttling.ThrottledFraction; f != nil {
				fmt.Fprintf(&b, "\t%.4f throttled-frac", *f)
			}
			fmt.Fprintf(&b, "\t%.4f model-ratio\n", r.Model.Ratio)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// GobenchName names a configuration as a benchmark with sub-benchmark keys.
func GobenchName(r *report.Report) string {
	cpus := "max"
	period := "none"
	if r.Cgroup.PeriodUs != nil {
		period = (time.Duration(*r.Cgroup.PeriodUs) * time.Microsecond).String()
		if r.Cgroup.QuotaUs > 0 {
			// Six decimals, as effective_cpus: 1/3 is 0.333333.
			cpus = strconv.FormatFloat(math.Round(1e6*float64(r.Cgroup.QuotaUs)/float64(*r.Cgroup.PeriodUs))/1e6, 'f', -1, 64)
		}
	}
	burst := (time.Duration(r.Cgroup.BurstUs) * time.Microsecond).String()
	c := r.Config
	// cost is bcrypt's: in every name since before there were other
	// workloads (0 for them), so that benchstat matches older results.
	name := fmt.Sprintf("BenchmarkThrottle/cpus=%s/period=%s/burst=%s/workers=%d/gomaxprocs=%d/cost=%d/batch=%d",
		cpus, period, burst, c.Workers, c.GOMAXPROCS, c.Params.Int("cost"), c.Batch)
	// The other workloads and the waits add to bcrypt's name, which stays
	// as it was so that benchstat matches older results.
	if c.Workload != "bcrypt" {
		name += "/workload=" + c.Workload
	}
	if spec, err := workload.Lookup(c.Workload); err == nil {
		name += spec.GobenchOf(c)
	}
	if c.SleepMs > 0 {
		name += fmt.Sprintf("/sleep=%v/sleep-every=%d/slow-workers=%d", time.Duration(c.SleepMs*float64(time.Millisecond)), c.SleepEvery, c.SlowWorkers)
	}
	return name
}
