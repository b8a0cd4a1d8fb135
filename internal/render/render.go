package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Formats lists the values --format accepts for a run.
var Formats = slices.Concat([]string{"json", "text"}, CIFormats)

// Write renders r in the given format.
func Write(w io.Writer, r *report.Report, format string) error {
	switch format {
	case "json":
		return report.WriteJSON(w, r)
	case "text":
		return writeText(w, r)
	}
	return WriteRuns(w, []*report.Report{r}, format)
}

// WriteRuns writes reports in one of CIFormats.
func WriteRuns(w io.Writer, reports []*report.Report, format string) error {
	if format == Gobench {
		return WriteGobench(w, reports)
	}
	return WriteMetrics(w, RunMetrics(reports), format)
}

// WriteLatencies writes latency results in one of CIFormats.
func WriteLatencies(w io.Writer, reports []*report.Latency, format string) error {
	if format == Gobench {
		return WriteBenches(w, LatencyBenches(reports))
	}
	return WriteMetrics(w, LatencyMetrics(reports), format)
}

// workloadText names the workload with its own values, as it says.
func workloadText(c report.Config) string {
	if spec, err := decl.Lookup(c.Workload); err == nil {
		return spec.TextOf(c)
	}
	return c.Workload
}

// ForPeople are the warnings a table or summary for a person shows: all
// but the one about comparing the result later, which means something only
// where a result is kept (-o, JSON: the caller's warnings on stderr and
// the file hold it) and which compare says again when it pairs two; on a
// plain run that nobody compares it cried wolf (issue 33).
func ForPeople(ws []report.Warning) []report.Warning {
	var out []report.Warning
	for _, w := range ws {
		if w.Kind != report.KindFewIterations {
			out = append(out, w)
		}
	}
	return out
}

// isAlone says whether name is a workload that runs alone, one process
// per iteration (the command): the closed loop's batch, workers and spread
// mean nothing for it.
func isAlone(name string) bool {
	spec, err := decl.Lookup(name)
	return err == nil && spec.Alone
}

// writeText is the short human summary, in the manner of hyperfine.
func writeText(w io.Writer, r *report.Report) error {
	var b strings.Builder
	c, cg, s := r.Config, r.Cgroup, r.Stats
	iterations := fmt.Sprintf("%d iterations", s.N)
	if c.MinTimeMs > 0 {
		minTime := time.Duration(c.MinTimeMs * float64(time.Millisecond)).Round(time.Microsecond)
		iterations += fmt.Sprintf(" (at least %d, for at least %v)", c.Iterations, minTime)
	}
	if isAlone(c.Workload) {
		// One run of the process per iteration; GOMAXPROCS is its
		// environment's (runtime: as it was, which a Go program reads
		// as Go's own default gives it here).
		env := fmt.Sprintf("GOMAXPROCS=%d in its environment", c.GOMAXPROCS)
		if c.GOMAXPROCSPolicy == "runtime" {
			env = "GOMAXPROCS as in its environment"
		}
		fmt.Fprintf(&b, "%s: one run per iteration, %s (+%d warm-up), %s\n",
			workloadText(c), strings.Replace(iterations, "iterations", "runs", 1), c.Warmup, env)
	} else {
		fmt.Fprintf(&b, "%s: %d × %d ops per iteration, %s (+%d warm-up), GOMAXPROCS %d\n",
			workloadText(c), c.Workers, c.Batch, iterations, c.Warmup, c.GOMAXPROCS)
	}
	if c.SleepMs > 0 {
		fmt.Fprintf(&b, "  waits:             %d of %s sleep %v after every %d ops\n", c.SlowWorkers, words.N(c.Workers, "worker"),
			time.Duration(c.SleepMs*float64(time.Millisecond)), c.SleepEvery)
	}
	if r.MBPerS != nil {
		fmt.Fprintf(&b, "  memory:            %s MB/s, %s minor + %s major faults per op\n", table.Sig(*r.MBPerS, 4), table.Sig(r.Faults.MinorPerOp, 4), table.Sig(r.Faults.MajorPerOp, 4))
	}
	fmt.Fprintf(&b, "  cgroup:            v%d %s %s\n", cg.Version, cg.Mode, cg.Path)
	if c.Cpuset != "" || c.Pin || c.OnePerCore {
		fmt.Fprintf(&b, "  placement:         %s\n", placementText(r))
	}
	fmt.Fprintf(&b, "  limit:             %s, effective %s\n", limitText(cg), words.F(roundSig(cg.EffectiveCPUs, 3), "CPU"))
	fmt.Fprintf(&b, "  Time (mean ± σ):   %s ± %s   (CoV %.1f%%)\n", table.MsSpaced(s.MeanMs), table.MsSpaced(s.StddevMs), 100*s.CoV)
	fmt.Fprintf(&b, "  Range (min … max): %s … %s\n", table.MsSpaced(s.MinMs), table.MsSpaced(s.MaxMs))
	fmt.Fprintf(&b, "  Percentiles:       p50 %s   p90 %s   p99 %s\n", table.MsSpaced(s.P50Ms), table.MsSpaced(s.P90Ms), table.MsSpaced(s.P99Ms))
	t := r.Throttling
	switch {
	case t.NrPeriods == nil || t.NrThrottled == nil:
		fmt.Fprintf(&b, "  Throttled:         not reported by the kernel\n")
	case t.ThrottledFraction == nil && cg.QuotaUs >= 0 && cg.PeriodUs != nil:
		// A quota, but the kernel counted no period: on v1 a period is
		// counted when its timer fires, which a run shorter than one
		// never sees (issue 33: 0.5 CPUs said "no quota").
		fmt.Fprintf(&b, "  Throttled:         no bandwidth period counted (the measured iterations ended within one)\n")
	case t.ThrottledFraction == nil:
		fmt.Fprintf(&b, "  Throttled:         no bandwidth periods ran (no quota)\n")
	default:
		fmt.Fprintf(&b, "  Throttled:         %d of %s (%.1f%%)", *t.NrThrottled, words.N(int(*t.NrPeriods), "period"), 100**t.ThrottledFraction)
		if t.ThrottledMs != nil {
			fmt.Fprintf(&b, ", %s in total", table.MsSpaced(*t.ThrottledMs))
		}
		b.WriteString("\n")
		b.WriteString(summedText(t, cg))
	}
	if t.NrBursts != nil && *t.NrBursts > 0 {
		fmt.Fprintf(&b, "  Bursts:            %d", *t.NrBursts)
		if t.BurstMs != nil {
			fmt.Fprintf(&b, ", %s in total", table.MsSpaced(*t.BurstMs))
		}
		b.WriteString("\n")
	}
	b.WriteString(usageText(r.Usage, t))
	b.WriteString(ContentionText(r.Contention))
	b.WriteString(eventsText(r.ThrottleEvents, r.ThrottledMsPerIteration))
	if l := throttle.BreakdownLine(r.Breakdown, "iterations"); l != "" {
		fmt.Fprintf(&b, "  By cause:          %s\n", l)
	}
	m := r.Model
	fmt.Fprintf(&b, "  Model:             %s CPU per iteration on %s → expected %s; measured/expected %.2f\n",
		table.MsSpaced(m.CPUMsPerIteration), words.F(roundSig(m.Parallelism, 3), "CPU"), table.MsSpaced(m.ExpectedMs), m.Ratio)
	// One worker has no one to be uneven with: no spread line then.
	if len(r.Workers) > 1 {
		fmt.Fprintf(&b, "  Spread:            slowest worker's ops/s %.2f × the fastest's, CoV %.1f%%\n",
			r.Spread.SlowestToFastest, 100*r.Spread.CoV)
	}
	switch {
	case isAlone(c.Workload) && len(r.Workers) == 1:
		// A command is one process, not workers: no worker row (its CPUs
		// were never sampled, "-"), its context switches alone.
		w := r.Workers[0]
		fmt.Fprintf(&b, "  Switches:          %d voluntary, %d involuntary over the %s\n",
			w.CtxSwitchesVoluntary, w.CtxSwitchesInvoluntary, words.N(w.Ops, "run"))
	case len(r.Workers) > 0:
		fmt.Fprintf(&b, "  Workers:           migrations %s\n", migrationsText(r.MigrationsSource))
		if err := table.Text(&b, workersTable(r)); err != nil {
			return err
		}
	}
	for _, warn := range ForPeople(r.Warnings) {
		fmt.Fprintf(&b, "  warning: %s\n", warn.Text)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ContentionText is the contention block's line: how long the work waited
// for CPUs others held, against the time it was runnable, and what else
// the kernel said; "" where it was not read.
func ContentionText(c *report.Contention) string {
	if c == nil {
		return ""
	}
	s := fmt.Sprintf("  Contention:        waited %s for CPUs others held, %.1f%% of the time runnable and not throttled (run delay %s less %s throttled, %s)",
		table.MsSpaced(c.WaitMs), 100*c.WaitShare, table.MsSpaced(c.RunDelayMs), table.MsSpaced(c.ThrottledMs), words.N(c.Threads, "thread"))
	if c.OthersCPUs != nil {
		s += fmt.Sprintf("; others used %.2f CPUs", *c.OthersCPUs)
	}
	if p := PressureText(c); p != "" {
		s += "; cpu.pressure " + p
	}
	return s + "\n"
}

// PressureText is the window's cpu.pressure: some and full, each in ms
// and as a share of the window ("some 30.00 ms (3.0% of the window), full
// 10.00 ms (1.0%)"); "" where the kernel keeps none for the cgroup (v1, PSI off).
func PressureText(c *report.Contention) string {
	if c == nil || c.PressureSomeMs == nil {
		return ""
	}
	one := func(name string, ms, share *float64, of string) string {
		if ms == nil {
			return name + " not kept"
		}
		s := name + " " + table.MsSpaced(*ms)
		if share != nil {
			s += fmt.Sprintf(" (%.1f%%%s)", 100**share, of)
		}
		return s
	}
	return one("some", c.PressureSomeMs, c.PressureSomeShare, " of the window") + ", " + one("full", c.PressureFullMs, c.PressureFullShare, "")
}

func migrationsText(source string) string {
	if source == "kernel" {
		return "counted by the kernel"
	}
	return "counted between sampled CPUs (a lower bound)"
}

// workersTable is one line per worker: its share of the work and where it
// ran, over all measured iterations.
func workersTable(r *report.Report) *table.Table {
	t := &table.Table{Style: table.Style{Indent: 4}}
	names := []string{"worker", "ops", "ops/s", "CPU time", "CPUs", "migrations", "switches vol/invol"}
	waits := r.Config.SleepMs > 0
	if waits {
		names = slices.Insert(names, 1, "profile")
	}
	for _, n := range names {
		t.Columns = append(t.Columns, table.Column{Name: n, Align: table.Right})
	}
	for _, w := range r.Workers {
		row := []string{strconv.Itoa(w.ID), strconv.Itoa(w.Ops), opsPerS(w, r.Stats.N), table.MsSpaced(w.CPUMs),
			cpuList(w.CPUs), strconv.FormatUint(w.Migrations, 10),
			fmt.Sprintf("%d/%d", w.CtxSwitchesVoluntary, w.CtxSwitchesInvoluntary)}
		if waits {
			row = slices.Insert(row, 1, w.Profile)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// opsPerS is a worker's throughput, its operations over the sum of its
// times (mean × iterations), as report's spread has it.
func opsPerS(w report.Worker, iterations int) string {
	wallS := w.MeanMs * float64(iterations) / 1000
	if wallS <= 0 {
		return "-"
	}
	v := float64(w.Ops) / wallS
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// cpuList writes ascending CPU ids as the kernel writes a cpuset: runs as
// ranges, "0-3,8"; "-" when none is known.
func cpuList(cpus []int) string {
	if len(cpus) == 0 {
		return "-"
	}
	return cpulist.Format(cpus)
}

// placementText says where the workers ran: the cpuset as the kernel took
// it, the CPUs they could use, and each one's CPU when pinned.
func placementText(r *report.Report) string {
	c, cg := r.Config, r.Cgroup
	var parts []string
	if c.Cpuset != "" {
		parts = append(parts, "cpuset "+cmp.Or(cg.Cpuset, c.Cpuset))
	}
	if cg.AllowedCPUs != "" {
		on := "workers on CPUs " + cg.AllowedCPUs
		if c.OnePerCore {
			on += " (one per core)"
		}
		parts = append(parts, on)
	} else if c.OnePerCore {
		parts = append(parts, "one per core")
	}
	if c.Pin {
		var pins []string
		for _, w := range r.Workers {
			if w.PinnedCPU != nil {
				pins = append(pins, fmt.Sprint(*w.PinnedCPU))
			}
		}
		parts = append(parts, "pinned to "+strings.Join(pins, ", "))
	}
	return strings.Join(parts, "; ")
}

func limitText(cg report.Cgroup) string {
	if cg.QuotaUs < 0 || cg.PeriodUs == nil {
		return "no quota"
	}
	s := fmt.Sprintf("quota %s per %s period", table.MsSpaced(float64(cg.QuotaUs)/1000), table.MsSpaced(float64(*cg.PeriodUs)/1000))
	if cg.BurstUs > 0 {
		s += fmt.Sprintf(", burst %s", table.MsSpaced(float64(cg.BurstUs)/1000))
	}
	return s
}

// usageText is the cgroup's CPU time over the measured iterations, where
// it was read, and its share of the quota over the periods counted.
func usageText(u report.Usage, t report.Throttling) string {
	if u.CPUMs == nil || u.Source == nil {
		return "  Usage:             not known (no counter could be read)\n"
	}
	from := map[string]string{report.SourceCgroup: "the cgroup's counter", report.SourceProcess: "the workload process's CPU clock"}[*u.Source]
	s := fmt.Sprintf("  Usage:             %s of CPU (%s)", table.MsSpaced(*u.CPUMs), cmp.Or(from, *u.Source))
	if u.QuotaUtilisation != nil && t.NrPeriods != nil {
		s += fmt.Sprintf(", %.1f%% of the quota over %s", 100**u.QuotaUtilisation, words.N(int(*t.NrPeriods), "period"))
	}
	return s + "\n"
}

// eventsText is --trace's line: the kernel's throttle events against the
// counter, and how they fell on the iterations; "" without a trace.
func eventsText(e *report.ThrottleEvents, perIteration []float64) string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  Throttle events:   %d on %s, %s in total (eBPF)", e.Count, words.N(len(e.CPUs), "CPU"), table.MsSpaced(e.TotalMs))
	if a := e.Agreement; a != nil && a.Ratio != nil {
		fmt.Fprintf(&b, "; cpu.stat %s, events/counter %.2f", table.MsSpaced(a.CounterMs), *a.Ratio)
	}
	if e.EventsLost > 0 {
		fmt.Fprintf(&b, "; %d lost", e.EventsLost)
	}
	b.WriteString("\n")
	if len(perIteration) > 0 {
		// The spread of the throttled ones: how much a throttle took.
		hit, lo, hi := 0, 0.0, 0.0
		for _, v := range perIteration {
			if v <= 0 {
				continue
			}
			if hit == 0 || v < lo {
				lo = v
			}
			hi = max(hi, v)
			hit++
		}
		fmt.Fprintf(&b, "  Per iteration:     %d of %s throttled", hit, words.N(len(perIteration), "iteration"))
		if hit > 0 {
			fmt.Fprintf(&b, ", %s … %s of each", table.MsSpaced(lo), table.MsSpaced(hi))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// summedText explains a throttled time longer than the periods it fell in
// (issue 28: two workers over 41 periods showed 7173 ms): the kernel adds
// up the time each CPU's share of the group waited, so a group throttled
// on N CPUs at once counts N times the wall time. "" where it is not
// clearly longer: a quarter more, as the periods counted are only those the
// group ran in, and a single worker's run showed 1.1x (2523.6 ms over 24
// periods of 100 ms: its Go runtime's threads throttled on the other CPU).
func summedText(t report.Throttling, cg report.Cgroup) string {
	if t.ThrottledMs == nil || t.NrPeriods == nil || cg.PeriodUs == nil || *cg.PeriodUs <= 0 {
		return ""
	}
	wallMs := float64(*t.NrPeriods) * float64(*cg.PeriodUs) / 1000
	if *t.ThrottledMs <= 1.25*wallMs {
		return ""
	}
	return fmt.Sprintf("                     (summed over the CPUs: each CPU the group was throttled on counts its own wait, so %s is %.1f× the %s those periods span)\n",
		table.MsSpaced(*t.ThrottledMs), *t.ThrottledMs/wallMs, table.MsSpaced(wallMs))
}

// roundSig is v to digits significant figures, for a count of CPUs.
func roundSig(v float64, digits int) float64 {
	f, _ := strconv.ParseFloat(table.Sig(v, digits), 64)
	return f
}
