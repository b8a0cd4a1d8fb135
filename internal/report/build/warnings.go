package build

import (
	"fmt"
	"math"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Background is what the harness read around the measured iterations,
// besides the cgroup's cpu.stat, for the warnings to judge the run by. A
// nil field was not known; a rule that needs it stays silent.
type Background struct {
	// Window is the wall time between the readings: the measured iterations
	// and the few hundred microseconds it takes to read the counters.
	Window time.Duration
	// MachineBusy is the CPU time every CPU of the machine spent running
	// anything over Window, summed, and BusyResolution how far off the
	// counter may be (/proc/stat rounds to 10 ms).
	MachineBusy    *time.Duration
	BusyResolution time.Duration
	// CgroupUsage is the CPU time of every process in the measured cgroup
	// over Window, where it has a counter; ProcessCPU this process's own,
	// in current mode, where the workload runs in this process.
	CgroupUsage *time.Duration
	ProcessCPU  *time.Duration
	// Waits is what the measured cgroup's threads' scheduler counters
	// said over Window; nil where they were not read.
	Waits *Waits
}

// Waits is the measured threads' scheduler counters' change over a
// window (internal/waits' Tracker): their run delay and time on CPU summed,
// how many threads were read, and the cgroup's CPU pressure (v2; nil on
// v1).
type Waits struct {
	Threads         int
	RunDelay, OnCPU time.Duration
	// Waited is the run delay beyond the quota's hold, taken apart thread
	// by thread between samples (waits.Tracker says how); nil where the
	// throttled time was not read at every sample.
	Waited *time.Duration
	// PressureSome and PressureFull are the growth of the cgroup's
	// cpu.pressure totals between two readings PressureWindow apart (v2;
	// nil on v1, where the kernel keeps none, and Full nil where it keeps
	// some alone).
	PressureSome, PressureFull *time.Duration
	PressureWindow             time.Duration
}

// Thresholds of the warnings, in one place; DefaultThresholds says why each
// value, docs/run.md's list of warnings what each rule means to a reader.
type Thresholds struct {
	MinPeriods        float64       // fewer CFS periods in the measured window: phase matters
	CgroupOthersShare float64       // others' share of the measured cgroup's CPU usage …
	CgroupOthersMin   time.Duration // … and at least this much of it
	BusyCPUs          float64       // other load on the machine, in CPUs on average, where the waits were not read
	// The work waited for CPUs others held for at least this share of the
	// time it was runnable and not throttled, and at least ContendedMin:
	// contended, the busy-machine warning; at RefuseShare, a window size
	// refuses (or with --busy count counts, marked busy).
	ContendedShare float64
	ContendedMin   time.Duration
	RefuseShare    float64
	Alpha          float64 // the significance compare tests at
	// Throttled while the quota went unused (the fibtest signature): at
	// least UnusedThrottledPeriods throttled periods, making up at least
	// UnusedThrottledFraction of the periods, and a quota utilisation
	// below UnusedRatio × that fraction.
	UnusedThrottledPeriods  uint64
	UnusedThrottledFraction float64
	UnusedRatio             float64
	// A latency percentile whose 95% interval spans more than this share
	// of it is too uncertain to act on (wide interval).
	MaxIntervalWidth float64
}

// DefaultThresholds are the thresholds every run is judged by.
var DefaultThresholds = Thresholds{
	// The two ends of the window fall anywhere in a period: the quota left
	// at its start and the throttled stretch cut off at its end move the
	// total by up to one period, 1/n of n periods. At 10 that is at most
	// 10% and typically half of it, compare's default threshold.
	MinPeriods: 10,
	// What others use in the measured cgroup comes out of its quota: at 5%
	// the slowdown is as large as compare's default threshold. 10 ms keeps
	// a short run quiet about a stray shell command.
	CgroupOthersShare: 0.05,
	CgroupOthersMin:   10 * time.Millisecond,
	// A fifth of a CPU of other load, averaged over the window, is a tenth
	// of our 2-CPU machines: enough to take CPU time from a workload that
	// uses every CPU, and to delay its wake-up when a period refills.
	BusyCPUs: 0.2,
	// The wait share of the windows of the README's size example (four
	// workers of 4 ms requests in bursts, unlimited and at 0.4–1.2 CPUs)
	// on our 2-CPU 6.18 host, in the default parent (its weight,
	// cgroup.DefaultParentWeight), 2026-11-29; median, 90th percentile and
	// most:
	//   quiet (3 runs, 110 windows)                 0.05, 0.07, 0.10
	//   a nice-19 loop on each CPU (10 runs, 358)   0.19, 0.30, 0.66; p99 7.6 ms unlimited (5.6 quiet)
	//   a nice-0 loop on one of the CPUs (5, 100)   0.49, 0.57, 0.61 (least 0.22); p99 18 ms
	// In a parent at the kernel's default weight, half a CPU of 5 ms
	// requests (`latency --rate 100 --work 5ms --workers 1`) waited
	// 0.195–0.357 beside the nice-19 loops (p99 ×2.7) and 0.546–0.560
	// beside a nice-0 loop on its only CPU (p99 ×9).
	// A tenth is the quiet machine's most: contended, warned. Size refuses
	// at 0.4, above nearly every window beside the nice-19 loops and below
	// nearly every one beside the nice-0 loop: only where the work waited
	// for others nearly as long as it ran does a window measure the
	// neighbours more than the limit; below it the window counts, its wait
	// said (a figure beside other work is still a figure).
	ContendedShare: 0.1,
	ContendedMin:   5 * time.Millisecond,
	RefuseShare:    0.4,
	// compare's default --alpha.
	Alpha: 0.05,
	// A period ends throttled only once its quota (with burst, more) has
	// been handed out, and a fixed kernel lets the CPUs use what they were
	// handed, so a run throttled in a fraction f of its periods has a
	// quota utilisation of at least about f, however bursty it is: the
	// unthrottled periods only add to it, burst too. Two things take from
	// that bound: the window's first throttled period, partly used before
	// the window (1/10 of the throttled periods at 10 of them), and the
	// runtime the CPUs still hold when it ends (1 ms each at most once the
	// workers are idle). 0.7·f leaves room for both and for the counters
	// being read a moment apart; a kernel that expires per-CPU slices
	// (before 5.4) uses far less, fibtest saw a small fraction of the
	// quota. Below a quarter of the periods, throttling shapes too little
	// of the run to matter, and the bound rests on few periods.
	UnusedThrottledPeriods:  10,
	UnusedThrottledFraction: 0.25,
	UnusedRatio:             0.7,
	// Two p99s a third apart (the 137 and 179 ms a user of issue 33 had to
	// guess about) overlap once each interval spans half its figure: at
	// 0.5 and beyond the interval cannot tell them apart.
	MaxIntervalWidth: 0.5,
}

// Check judges a built report r (and what else was read around it) and
// returns the warnings it deserves. Every warning starts with a short
// headline ending in ": ", then says what is wrong, by how much, and what
// to do about it: tables show the headlines, the JSON carries it all.
func Check(r *report.Report, bg Background, th Thresholds) []report.Warning {
	var w []report.Warning
	c := r.Config
	if c.GOMAXPROCS > 0 && c.GOMAXPROCS < c.Workers {
		w = append(w, report.Warn(report.KindGOMAXPROCS, "GOMAXPROCS %d is below --workers %d: workers take turns even without a CPU limit", c.GOMAXPROCS, c.Workers))
	}
	var window float64 // ms: the measured iterations run back to back
	for _, d := range r.DurationsMs {
		window += d
	}
	if q, ok := bindingQuota(r); ok {
		periods := window / ms(q.period)
		counted := q.leaf && r.Throttling.NrPeriods != nil && *r.Throttling.NrPeriods > 0
		if counted {
			periods = float64(*r.Throttling.NrPeriods)
		}
		if periods < th.MinPeriods && window > 0 {
			n := fmt.Sprintf("about %.1f", periods)
			if counted {
				n = fmt.Sprintf("%.0f", periods)
			}
			noun := words.Noun(2, "CFS period")
			if counted {
				noun = words.Noun(periods, "CFS period")
			}
			w = append(w, report.Warn(report.KindFewPeriods, "few periods: the measured iterations span %s, %s %s of %v; "+
				"where they start and end within a period can shift their total by up to a period, %.0f%% of it; raise --iterations or use --min-time %v",
				table.MsSpaced(window), n, noun, q.period, 100*ms(q.period)/window, time.Duration(th.MinPeriods)*q.period))
		}
		if cpu := r.Model.CPUMsPerIteration; cpu > 0 && cpu < ms(q.quota) {
			// Two periods' worth of CPU: iterations of about two periods,
			// clear of this rule with room for noise.
			batch := int(math.Ceil(2 * float64(c.Batch) * ms(q.quota) / cpu))
			fix := fmt.Sprintf("use --batch %d or more", batch)
			if spec, err := decl.Lookup(c.Workload); err == nil && spec.Alone {
				// A command's iteration is one run: it has no batch.
				fix = "read the mean (not the median) over many runs (--min-time), or give the command more work per run"
			}
			w = append(w, report.Warn(report.KindShortIterations, "short iterations: an iteration needs %s of CPU, less than the %v quota per %v period: "+
				"some run unthrottled, others wait out a throttled stretch, so the median and percentiles show the unthrottled speed "+
				"and the mean depends on where iterations fall in the period (the model ratio drifts below 1); %s",
				table.MsSpaced(cpu), q.quota, q.period, fix))
		}
	}
	if need := stats.UTestNeededN(th.Alpha); r.Stats.N < need {
		w = append(w, report.Warn(report.KindFewIterations, "few iterations: compare can never find a change with %d+%d iterations (a two-sided U test needs %d on each side for p<%v); "+
			"raise --iterations to %d or more (10 finds smaller changes), or pool several results",
			r.Stats.N, r.Stats.N, need, th.Alpha, need))
	}
	if msg, ok := unusedQuota(r.Cgroup.Mode, r.Throttling, r.Usage, th); ok {
		w = append(w, report.Warning{Kind: report.KindUnusedQuota, Text: msg})
	}
	if msg, ok := sharedCgroup(r.Cgroup.Path, bg, th); ok {
		w = append(w, report.Warning{Kind: report.KindCgroupOthers, Text: msg})
	}
	if msg, ok := busyMachine(r.Contention, bg, others(bg, ownCPU(r, bg)), th, "durations and the model ratio"); ok {
		w = append(w, report.Warning{Kind: report.KindBusyMachine, Text: msg})
	}
	return w
}

// ownCPU is the measured work's CPU time over the window: this process's
// in current mode (the workload runs in it), else its workers'.
func ownCPU(r *report.Report, bg Background) *time.Duration {
	if bg.ProcessCPU != nil {
		return bg.ProcessCPU
	}
	var sum time.Duration
	for _, wk := range r.Workers {
		sum += time.Duration(wk.CPUMs * float64(time.Millisecond))
	}
	return &sum
}

// others is what other processes used of the machine over the window:
// its busy time less own; 0 where either is not known.
func others(bg Background, own *time.Duration) time.Duration {
	if bg.MachineBusy == nil || own == nil {
		return 0
	}
	return *bg.MachineBusy - *own
}

// sharedCgroup is the warning for a measured cgroup (current mode) in
// which other processes used a noticeable share of the CPU.
func sharedCgroup(path string, bg Background, th Thresholds) (string, bool) {
	if bg.CgroupUsage == nil || bg.ProcessCPU == nil {
		return "", false
	}
	others := *bg.CgroupUsage - *bg.ProcessCPU
	if others < th.CgroupOthersMin || float64(others) <= th.CgroupOthersShare*float64(*bg.CgroupUsage) {
		return "", false
	}
	return fmt.Sprintf("shared cgroup: other processes in %s used %s of CPU during the measurement, %.0f%% of the cgroup's; "+
		"the cgroup's counters (and its quota, if it has one) cover them too; measure in a slice of its own (--cgroup create)",
		path, table.MsSpaced(ms(others)), 100*float64(others)/float64(*bg.CgroupUsage)), true
}

// unusedQuota is the warning for a cgroup throttled in many periods while
// using far less than their quota: every throttled period had its quota
// handed out, so a quota utilisation well below the throttled fraction
// means CPUs were handed runtime they did not get to use. The usage must be
// the whole cgroup's: its counter's, or in a created slice the workload's
// own (alone there). In the current cgroup this process's CPU time leaves
// out the others in it, whose use of the quota the throttling counts.
func unusedQuota(mode string, t report.Throttling, u report.Usage, th Thresholds) (string, bool) {
	if t.NrThrottled == nil || t.ThrottledFraction == nil || u.QuotaUtilisation == nil {
		return "", false
	}
	if mode != "created" && (u.Source == nil || *u.Source != report.SourceCgroup) {
		return "", false
	}
	f, util := *t.ThrottledFraction, *u.QuotaUtilisation
	if *t.NrThrottled < th.UnusedThrottledPeriods || f < th.UnusedThrottledFraction || util >= th.UnusedRatio*f {
		return "", false
	}
	return fmt.Sprintf("throttled below quota: throttled in %d of %d periods (%.0f%%) while using %.0f%% of the quota over them (%s of CPU of %s); "+
		"a throttled period has had its whole quota handed out, so a run throttled that often uses at least about %.0f%% of it: "+
		"quota handed to per-CPU run queues went unused, the signature of the kernel bug fibtest found "+
		"(per-CPU slices expiring unused, fixed in 5.4 by \"sched/fair: Fix low cpu usage with high throttling by removing expiration of cpu-local slices\"); "+
		"the throttling, and the slowdown it causes, is the kernel's doing, not what the limit asks: check that this kernel has the fix",
		*t.NrThrottled, *t.NrPeriods, 100*f, 100*util, table.MsSpaced(*u.CPUMs), table.MsSpaced(*u.CPUMs/util), 100*f), true
}

type quota struct {
	period, quota time.Duration
	leaf          bool // the measured cgroup's own, whose cpu.stat counts its periods
}

// bindingQuota is the tightest quota over the measured cgroup and its
// ancestors, if it limits the run: a quota of more CPUs than the workers,
// GOMAXPROCS and the CPUs they may use (their cpuset, as effective_cpus
// counts them; the machine's where not known) allow is never used up, and
// has no periods worth warning about.
func bindingQuota(r *report.Report) (quota, bool) {
	var best quota
	found := false
	consider := func(periodUs, quotaUs int64, leaf bool) {
		if periodUs <= 0 || quotaUs <= 0 {
			return
		}
		q := quota{time.Duration(periodUs) * time.Microsecond, time.Duration(quotaUs) * time.Microsecond, leaf}
		if !found || float64(q.quota)/float64(q.period) < float64(best.quota)/float64(best.period) {
			best, found = q, true
		}
	}
	if r.Cgroup.PeriodUs != nil {
		consider(*r.Cgroup.PeriodUs, r.Cgroup.QuotaUs, true)
	}
	for _, l := range r.Cgroup.Levels {
		consider(l.PeriodUs, l.QuotaUs, false)
	}
	if !found {
		return quota{}, false
	}
	cpus := r.Host.NumCPU
	if allowed, err := cpulist.Parse(r.Cgroup.AllowedCPUs); err == nil && len(allowed) > 0 {
		cpus = len(allowed)
	}
	free := model.Parallelism(r.Config.Workers, r.Config.GOMAXPROCS, float64(cpus))
	return best, float64(best.quota)/float64(best.period) < free
}
