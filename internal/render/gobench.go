package render

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/report"
)

// WriteGobench writes reports in the Go benchmark format, one line per
// measured iteration, so that benchstat can compare runs:
//
//	BenchmarkThrottle/cpus=0.5/period=100ms/burst=0s/workers=2/gomaxprocs=2/cost=4/batch=50  1  52300000 ns/op  0.12 throttled-frac  1.03 model-ratio
//
// The configuration lines before them (kernel, cgroup-version, quota, …)
// are what benchstat shows as the context of a comparison.
func WriteGobench(w io.Writer, reports []*report.Report) error {
	return WriteBenches(w, RunBenches(reports))
}

// RunBenches are reports as benchmarks: a line per measured iteration,
// its wall time (ns/op), its CPU time where the result kept it per
// iteration (cpu-ns/op), the run's throttled fraction and model ratio.
func RunBenches(reports []*report.Report) []Bench {
	var out []Bench
	for _, r := range reports {
		b := Bench{Config: RunConfig(r), Name: GobenchName(r)}
		cpu := len(r.CountersPerIteration) == len(r.DurationsMs)
		for i, d := range r.DurationsMs {
			l := Line{N: 1, Values: []Value{{d * 1e6, "ns/op", 0}}}
			if cpu {
				l.Values = append(l.Values, Value{r.CountersPerIteration[i].CPUMs * 1e6, "cpu-ns/op", 0})
			}
			if f := r.Throttling.ThrottledFraction; f != nil {
				l.Values = append(l.Values, Value{*f, "throttled-frac", 4})
			}
			l.Values = append(l.Values, Value{r.Model.Ratio, "model-ratio", 4})
			b.Lines = append(b.Lines, l)
		}
		out = append(out, b)
	}
	return out
}

// LatencyBenches are latency results as benchmarks: a line per
// configuration, its completed requests as the iterations and each of
// p50, p90, p99, p99.9 and the mean as a metric in ms (named as latency's
// columns). A configuration where no request completed has no figure and
// no line.
func LatencyBenches(reports []*report.Latency) []Bench {
	var out []Bench
	for _, r := range reports {
		b := Bench{Config: LatencyConfig(r), Name: LatencyGobenchName(r)}
		if l := r.LatencyMs; !l.None {
			b.Lines = []Line{{N: r.Completed, Values: []Value{{l.P50, "p50_ms", -1}, {l.P90, "p90_ms", -1},
				{l.P99, "p99_ms", -1}, {l.P999, "p999_ms", -1}, {l.Mean, "mean_ms", -1}}}}
		}
		out = append(out, b)
	}
	return out
}

// HostConfig are the machine's configuration lines, as Go's own
// benchmarks begin.
func HostConfig(h report.Host) []ConfigLine {
	return []ConfigLine{{"goos", "linux"}, {"goarch", runtime.GOARCH}, {"cpu", h.CPUModel}, {"go", h.GoVersion}}
}

// LimitConfig are the configuration lines that say what a figure ran
// under: the kernel and how it throttles, the cgroup version, the limits
// and GOMAXPROCS. Empty values are left out (an older result's unknown
// version), as benchstat groups by the value.
func LimitConfig(kernel string, cgroupVersion int, quota, period, burst string, gomaxprocs int) []ConfigLine {
	var out []ConfigLine
	add := func(k, v string) {
		if v != "" {
			out = append(out, ConfigLine{k, v})
		}
	}
	add("kernel", kernel)
	add("throttle-model", ThrottleModel(kernel))
	if cgroupVersion > 0 {
		add("cgroup-version", strconv.Itoa(cgroupVersion))
	}
	add("quota", quota)
	add("period", period)
	add("burst", burst)
	if gomaxprocs > 0 {
		add("gomaxprocs", strconv.Itoa(gomaxprocs))
	}
	return out
}

// RunConfig are a run's configuration lines.
func RunConfig(r *report.Report) []ConfigLine {
	q, p, b := limits(r.Cgroup)
	return append(HostConfig(r.Host), LimitConfig(r.Host.Kernel, r.Cgroup.Version, q, p, b, r.Config.GOMAXPROCS)...)
}

// LatencyConfig are a latency result's configuration lines.
func LatencyConfig(r *report.Latency) []ConfigLine {
	q, p, b := limits(r.Cgroup)
	return append(HostConfig(r.Host), LimitConfig(r.Host.Kernel, r.Cgroup.Version, q, p, b, r.Config.GOMAXPROCS)...)
}

// limits are a cgroup's quota, period and burst as the configuration
// lines say them: "max" for no quota, as cpu.max does, and "none" for a
// period where none was read.
func limits(cg report.Cgroup) (quota, period, burst string) {
	quota, period = "max", "none"
	if cg.QuotaUs >= 0 {
		quota = us(cg.QuotaUs)
	}
	if cg.PeriodUs != nil {
		period = us(*cg.PeriodUs)
	}
	return quota, period, us(cg.BurstUs)
}

func us(v int64) string { return (time.Duration(v) * time.Microsecond).String() }

// ThrottleModel is how the kernel release throttles a group whose quota
// ran out: "per-queue" before 6.18 (the group's run queue on each CPU is
// taken off at once), "per-task" from 6.18 (each thread is held on its
// way back to user space), which moves both throttled time and latency
// tails; "" where the release does not say. From the release, since a
// result keeps no probe of the scheduler.
func ThrottleModel(kernel string) string {
	parts := strings.SplitN(kernel, ".", 3)
	if len(parts) < 2 {
		return ""
	}
	// "6.18-rc1", "6.1.0-18-amd64": the digits that lead each part.
	lead := func(s string) (int, error) { return strconv.Atoi(s[:len(s)-len(strings.TrimLeft(s, "0123456789"))]) }
	major, err1 := lead(parts[0])
	minor, err2 := lead(parts[1])
	if err1 != nil || err2 != nil {
		return ""
	}
	if major > 6 || major == 6 && minor >= 18 {
		return "per-task"
	}
	return "per-queue"
}

// GobenchName names a configuration as a benchmark with sub-benchmark keys.
func GobenchName(r *report.Report) string {
	c := r.Config
	// cost is bcrypt's: in every name since before there were other
	// workloads (0 for them), so that benchstat matches older results.
	name := fmt.Sprintf("BenchmarkThrottle/%s/workers=%d/gomaxprocs=%d/cost=%d/batch=%d",
		limitName(r.Cgroup), c.Workers, c.GOMAXPROCS, c.Params.Int("cost"), c.Batch)
	// The other workloads and the waits add to bcrypt's name, which stays
	// as it was so that benchstat matches older results.
	if c.Workload != "bcrypt" {
		name += "/workload=" + c.Workload
	}
	if spec, err := decl.Lookup(c.Workload); err == nil {
		name += spec.GobenchOf(c)
	}
	if c.SleepMs > 0 {
		name += fmt.Sprintf("/sleep=%v/sleep-every=%d/slow-workers=%d", msText(c.SleepMs), c.SleepEvery, c.SlowWorkers)
	}
	return name
}

// LatencyGobenchName names a latency configuration by every axis a list
// may vary (config.AxesFor(config.Latency)) and what fixes its schedule,
// so that the rows of a list are told apart and the same configuration
// matches in another file.
func LatencyGobenchName(r *report.Latency) string {
	c := r.Config
	name := fmt.Sprintf("BenchmarkLatency/%s/workers=%d/gomaxprocs=%d/work=%v/rate=%s/arrivals=%s",
		limitName(r.Cgroup), c.Workers, c.GOMAXPROCS, msText(c.WorkMs), strconv.FormatFloat(c.Rate, 'f', -1, 64), c.Arrivals)
	if c.WaitMs > 0 {
		name += fmt.Sprintf("/wait=%v", msText(c.WaitMs))
	}
	if c.InstancesConfig != nil {
		name += "/instances=" + c.Instances
	}
	if c.TargetConfig != nil {
		name += "/target"
	}
	return name
}

// limitName is a name's limits: the CPUs (quota/period, "max" without
// one), the period and the burst.
func limitName(cg report.Cgroup) string {
	cpus := "max"
	period := "none"
	if cg.PeriodUs != nil {
		period = us(*cg.PeriodUs)
		if cg.QuotaUs > 0 {
			// Six decimals, as effective_cpus: 1/3 is 0.333333.
			cpus = strconv.FormatFloat(math.Round(1e6*float64(cg.QuotaUs)/float64(*cg.PeriodUs))/1e6, 'f', -1, 64)
		}
	}
	return fmt.Sprintf("cpus=%s/period=%s/burst=%s", cpus, period, us(cg.BurstUs))
}

func msText(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

func strconvF(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
