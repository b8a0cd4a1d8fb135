package build

import (
	"fmt"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/table"
)

// LatencyInput is everything a latency report is built from.
type LatencyInput struct {
	Open       runspec.OpenLoop
	Policy     string
	Mode       string
	Cgroup     bandwidth.Group
	Limits     bandwidth.Limits
	Chain      []bandwidth.Level
	NumCPU     int
	Result     bench.LatencyResult
	Stat       bandwidth.CPUStat // the change over the window
	Host       report.Host
	Window     time.Duration
	CPU        *time.Duration // the workload's CPU time over Window
	CPUSource  string         // where CPU was read: SourceCgroup, SourceProcess
	Peak100    *float64       // CPUs
	Warnings   []report.Warning
	Background Background
	// Cpuset is what --cpuset asked (nil: nothing); CgroupCpuset the
	// slice's CPUs read back, which the workload process then had: they
	// count instead of NumCPU.
	Cpuset       []int
	CgroupCpuset string
}

// BuildLatency turns an open-loop run into its report.
func BuildLatency(in LatencyInput) *report.Latency {
	o, res := in.Open, in.Result
	allowed := in.NumCPU
	if cpus, err := cpulist.Parse(in.CgroupCpuset); err == nil && len(cpus) > 0 {
		allowed = len(cpus)
	}
	eff := bandwidth.EffectiveCPUs(in.Chain, allowed)
	r := &report.Latency{
		SchemaVersion: report.SchemaVersion,
		Config: report.LatencyConfig{Rate: o.Rate, Arrivals: o.Arrivals, Count: o.Count, WorkMs: ms(o.Work), WaitMs: ms(o.Wait),
			Workers: o.Workers, Queue: o.Queue, DurationS: o.Duration.Seconds(), Seed: o.Seed,
			GOMAXPROCS: res.GOMAXPROCS, GOMAXPROCSPolicy: in.Policy, Cpuset: cpulist.Format(in.Cpuset)},
		Cgroup:    cgroupBlock(in.Mode, in.Cgroup, in.Limits, in.Chain, eff),
		Host:      in.Host,
		Offered:   res.Offered,
		Completed: res.Completed,
		Dropped:   res.Dropped,
		WindowMs:  ms(in.Window),
		LatencyMs: report.LatencyMs{Mean: ms(res.Mean), Min: ms(res.Min), P50: ms(res.P50), P90: ms(res.P90), P99: ms(res.P99),
			P999: ms(res.P999), Max: ms(res.Max)},
		Throttling:     throttling(in.Stat),
		PeakCPUs100ms:  in.Peak100,
		DispatchLateMs: ms(res.Late),
		// The schema's Calibration is driver's field for field.
		Calibration: res.Calibration,
		Histogram:   res.Histogram,
		Warnings:    append([]report.Warning{}, in.Warnings...),
	}
	r.Cgroup.Cpuset = in.CgroupCpuset
	// No response: no figure, null rather than 0 (and no warning judges
	// one).
	r.LatencyMs.None = res.Completed == 0
	r.LatencyMsCI95 = ci95(res.Histogram, r.LatencyMs)
	r.FloorMs, r.Floor = floorBlock(res.Floor)
	if o.Onoff() { // 0 otherwise: they shaped nothing
		r.Config.OnMs, r.Config.OffMs = ms(o.On), ms(o.Off)
	}
	if o.Duration > 0 {
		r.OfferedRPS = float64(res.Offered) / o.Duration.Seconds()
	}
	// Over the longer of the schedule and the serving: a run that keeps up
	// achieves what was offered (less what it dropped), an overloaded one
	// less, as its last requests finish after the schedule has ended.
	if span := max(o.Duration, res.Elapsed); span > 0 {
		r.AchievedRPS = float64(res.Completed) / span.Seconds()
	}
	for _, c := range res.WorkerCPU {
		r.WorkerCPUMs = append(r.WorkerCPUMs, ms(c))
	}
	if in.CPU != nil {
		c := ms(*in.CPU)
		r.CPUMs = &c
		if in.Window > 0 && eff > 0 {
			u := float64(*in.CPU) / (float64(in.Window) * eff)
			r.CPUUtilisation = &u
		}
	}
	r.Usage = usage(in.CPU, in.CPUSource, in.Limits.Quota, in.Stat.NrPeriods)
	r.Model.OfferedCPUs = o.Rate * o.Work.Seconds()
	if eff > 0 {
		r.Model.OfferedLoad = r.Model.OfferedCPUs / eff
	}
	r.Contention = Contend(in.Background, r.Throttling, latencyOwn(r, in.Background), DefaultThresholds)
	r.Warnings = append(r.Warnings, CheckLatency(r, in.Background, DefaultThresholds)...)
	return r
}

// Thresholds of the latency warnings.
const (
	// Timer slack and a wake-up on a busy CPU stay below a millisecond; more
	// is a stalled dispatch.
	lateWarn = 5 * time.Millisecond
	// A percentile under this many times the floor's owes as much to the
	// machine's timers and the harness as to the workload.
	FloorFactor = 3
)

// CheckLatency judges a built latency report.
func CheckLatency(r *report.Latency, bg Background, th Thresholds) []report.Warning {
	var w []report.Warning
	c := r.Config
	if c.GOMAXPROCS > 0 && c.GOMAXPROCS < c.Workers {
		w = append(w, report.Warn(report.KindGOMAXPROCS, "GOMAXPROCS %d is below --workers %d: workers take turns even without a CPU limit", c.GOMAXPROCS, c.Workers))
	}
	if msg, ok := fewForIntervals(r); ok {
		w = append(w, msg)
	}
	if r.Dropped > 0 {
		w = append(w, report.Warn(report.KindDroppedRequests, "dropped requests: %d of %d (%.1f%%) found the queue (--queue %d) full and were not served; the latencies cover completed requests only",
			r.Dropped, r.Offered, 100*float64(r.Dropped)/float64(max(r.Offered, 1)), c.Queue))
	}
	if r.Model.OfferedLoad > 1 {
		w = append(w, report.Warn(report.KindOverload, "overload: the requests ask for %.2f CPUs (rate × work), more than the %.2f allowed: the queue grows for the whole run, so the latencies grow with --duration",
			r.Model.OfferedCPUs, r.Cgroup.EffectiveCPUs))
	}
	if late := time.Duration(r.DispatchLateMs * float64(time.Millisecond)); late > lateWarn {
		w = append(w, report.Warn(report.KindLateDispatch, "late dispatch: a request was dispatched up to %s after its scheduled arrival (the worker waiting for it, in the same slice, was throttled or preempted); "+
			"the response times include the delay, measured from the scheduled arrival", table.MsSpaced(r.DispatchLateMs)))
	}
	if msg, ok := wideInterval(r, th); ok {
		w = append(w, report.Warning{Kind: report.KindWideInterval, Text: msg})
	}
	if msg, ok := nearFloor(r.LatencyMs, r.FloorMs); ok {
		w = append(w, report.Warning{Kind: report.KindNearFloor, Text: msg})
	}
	if r.PeakCPUs100ms == nil {
		w = append(w, report.Warning{Kind: report.KindNoPeak, Text: "no 100 ms peak: the window was shorter than two samples of the workload's CPU usage, or its counter could not be read"})
	}
	if r.Cgroup.PeriodUs != nil && r.Cgroup.QuotaUs > 0 && r.Throttling.NrPeriods != nil && float64(*r.Throttling.NrPeriods) < th.MinPeriods {
		w = append(w, report.Warn(report.KindFewPeriods, "few periods: the window spans %d CFS periods; the throttling counters of so short a run depend on where it falls in a period; raise --duration",
			*r.Throttling.NrPeriods))
	}
	if msg, ok := unusedQuota(r.Cgroup.Mode, r.Throttling, r.Usage, th); ok {
		w = append(w, report.Warning{Kind: report.KindUnusedQuota, Text: msg})
	}
	// In current mode cpu_ms and cpu_utilisation are the whole cgroup's.
	if msg, ok := sharedCgroup(r.Cgroup.Path, bg, th); ok {
		w = append(w, report.Warning{Kind: report.KindCgroupOthers, Text: msg})
	}
	if own := latencyOwn(r, bg); own != nil {
		if msg, ok := busyMachine(r.Contention, bg, others(bg, own), th, "response times"); ok {
			w = append(w, report.Warning{Kind: report.KindBusyMachine, Text: msg})
		}
	}
	return w
}

// latencyOwn is the measured work's CPU time: this process's where it
// is measured (current mode; a client beside its server), else the
// workload's; nil where neither is known.
func latencyOwn(r *report.Latency, bg Background) *time.Duration {
	if bg.ProcessCPU != nil {
		return bg.ProcessCPU
	}
	if r.CPUMs == nil {
		return nil
	}
	own := time.Duration(*r.CPUMs * float64(time.Millisecond))
	return &own
}

// floorBlock is the floor's keys; nil where it was not measured.
func floorBlock(f *bench.Floor) (*report.FloorMs, *report.Floor) {
	if f == nil {
		return nil, nil
	}
	return &report.FloorMs{P50: ms(f.P50), P99: ms(f.P99), P999: ms(f.P999)},
		&report.Floor{Wakeups: f.Wakeups, Arrivals: f.Arrivals, IntervalMs: ms(f.Interval), MaxMs: ms(f.Max), TookMs: ms(f.Took)}
}

// nearFloor names the percentiles of l (p50, p99, p99.9) under FloorFactor
// times the floor's same percentile.
func nearFloor(l report.LatencyMs, f *report.FloorMs) (string, bool) {
	if f == nil || l.None {
		return "", false
	}
	var near, floor []string
	for _, p := range []struct {
		name      string
		got, base float64
	}{{"p50", l.P50, f.P50}, {"p99", l.P99, f.P99}, {"p99.9", l.P999, f.P999}} {
		if p.base > 0 && p.got < FloorFactor*p.base {
			near = append(near, fmt.Sprintf("%s %s", p.name, table.MsSpaced(p.got)))
			floor = append(floor, fmt.Sprintf("%s %s", p.name, table.MsSpaced(p.base)))
		}
	}
	if len(near) == 0 {
		return "", false
	}
	return fmt.Sprintf("near the floor: %s within %d× of the harness's own floor (floor_ms: %s; requests that need no work, sent through the same path before the window); "+
		"at these response times the machine's timers weigh as much as the workload, and a difference smaller than the floor is not the workload's",
		strings.Join(near, ", "), FloorFactor, strings.Join(floor, ", ")), true
}
