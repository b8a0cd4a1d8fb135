package usage

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/table"
)

// Formats are the outputs of a File: json (the simulator's input), text (a
// summary for people), csv (one row per interval).
var Formats = []string{"json", "text", "csv"}

// Write renders f in format.
func Write(w io.Writer, f File, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	case "csv":
		return table.CSV(w, intervals(f))
	case "text":
		return writeText(w, f)
	}
	return fmt.Errorf("unknown format %q", format)
}

// intervals is one row per interval: when it ended, how long it lasted,
// the usage in it, and the pressure's growth over it where it was read.
func intervals(f File) *table.Table {
	t := &table.Table{Columns: []table.Column{{Name: "t_ms"}, {Name: "span_ms"}, {Name: "usage_cpus"}}}
	series := []struct {
		name string
		v    []float64
	}{{"pressure_some_ms", f.PressureSomeMs}, {"pressure_full_ms", f.PressureFullMs}}
	for _, s := range series {
		if s.v != nil {
			t.Columns = append(t.Columns, table.Column{Name: s.name})
		}
	}
	prev := 0.0
	for i, u := range f.UsageCPUs {
		row := []string{num(f.TMs[i]), num(f.TMs[i] - prev), num(u)}
		for _, s := range series {
			if s.v != nil {
				row = append(row, num(s.v[i]))
			}
		}
		t.Rows = append(t.Rows, row)
		prev = f.TMs[i]
	}
	return t
}

// pressureText is the line on the pressure: its growth over the sampling
// in ms and as a share of it, and the most in one interval; "" where it
// was not read.
func pressureText(f File) string {
	s := f.Summary
	if s.PressureSomeMs == nil {
		return ""
	}
	one := func(name string, total, share *float64, series []float64) string {
		if total == nil {
			return name + " not kept"
		}
		out := name + " " + table.Ms(*total)
		if share != nil {
			out += " (" + pct(*share) + ")"
		}
		most, at := 0.0, 0
		for i, v := range series {
			if v > most {
				most, at = v, i
			}
		}
		if span := f.TMs[at] - prevT(f, at); most > 0 && span > 0 {
			out += ", at most " + pct(most/span) + " of one interval"
		}
		return out
	}
	return "cpu.pressure: " + one("some", s.PressureSomeMs, s.PressureSomeShare, f.PressureSomeMs) + "; " +
		one("full", s.PressureFullMs, s.PressureFullShare, f.PressureFullMs) + "\n"
}

// prevT is when interval i began.
func prevT(f File, i int) float64 {
	if i == 0 {
		return 0
	}
	return f.TMs[i-1]
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func cpus(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func pct(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

func writeText(w io.Writer, f File) error {
	fmt.Fprintf(w, "cgroup %s (v%d, %s): %d intervals of %s over %s",
		f.Cgroup.Path, f.Cgroup.Version, f.Cgroup.Counter, len(f.UsageCPUs), table.Ms(f.IntervalMs), table.Ms(f.DurationMs))
	if f.Interrupted {
		fmt.Fprint(w, " (interrupted)")
	}
	fmt.Fprint(w, "\n\n")

	views := []SummaryJSON{f.Summary.Interval}
	if f.Summary.Coarse != nil {
		views = append(views, *f.Summary.Coarse)
	}
	t := &table.Table{Columns: []table.Column{{Name: "usage (CPUs)"}}, Style: table.Style{Indent: 2}}
	for _, v := range views {
		t.Columns = append(t.Columns, table.Column{Name: "per " + table.Ms(v.WindowMs), Align: table.Right})
	}
	row := func(name string, get func(SummaryJSON) string) {
		r := []string{name}
		for _, v := range views {
			r = append(r, get(v))
		}
		t.Rows = append(t.Rows, r)
	}
	row("intervals", func(v SummaryJSON) string { return strconv.Itoa(v.N) })
	row("mean", func(v SummaryJSON) string { return cpus(v.MeanCPUs) })
	row("variance", func(v SummaryJSON) string { return strconv.FormatFloat(v.VarianceCPUs2, 'f', 4, 64) })
	row("p50", func(v SummaryJSON) string { return cpus(v.P50CPUs) })
	row("p90", func(v SummaryJSON) string { return cpus(v.P90CPUs) })
	row("p99", func(v SummaryJSON) string { return cpus(v.P99CPUs) })
	row("max", func(v SummaryJSON) string { return cpus(v.MaxCPUs) })
	if f.LimitCPUs != nil {
		row("above "+cpus(*f.LimitCPUs), func(v SummaryJSON) string { return pct(*v.AboveLimitFraction) })
	}
	if err := table.Text(w, t); err != nil {
		return err
	}
	if p := pressureText(f); p != "" {
		fmt.Fprint(w, "\n"+p)
	}

	writeAdvice(w, f)

	s := f.Sampler
	fmt.Fprint(w, "sampler: ")
	if s.CPUMs != nil && s.CPUFraction != nil {
		fmt.Fprintf(w, "%s CPU (%s of one CPU), ", table.Ms(*s.CPUMs), pct(*s.CPUFraction))
	}
	fmt.Fprintf(w, "late by %s mean, %s p99, %s max; %d instants missed\n",
		table.Ms(s.LateUs.Mean/1000), table.Ms(s.LateUs.P99/1000), table.Ms(s.LateUs.Max/1000), s.Missed)
	for _, warn := range f.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn.Text)
	}
	return nil
}

// writeAdvice is the advised limit and burst, each as it is set: a limit
// in Kubernetes' and Docker's words; a burst under the kernel's cap with
// Docker's period and quota, one above it with the period or the limit
// that makes room for it.
func writeAdvice(w io.Writer, f File) {
	a := f.Advice
	if none := f.NoLimit(); none != "" {
		// Never "docker run --cpus 0", which Docker reads as no limit; a
		// burst above no limit means nothing either, unless --limit gave one.
		fmt.Fprintf(w, "\nlimit: %s\n", none)
		if f.LimitCPUs == nil {
			return
		}
	} else {
		fmt.Fprintf(w, "\nlimit for at most %s of %s intervals above it: %s CPUs\n", pct(a.TargetFraction), table.Ms(f.IntervalMs), cpus(a.LimitCPUs))
		fmt.Fprintf(w, "  %s · %s%s\n", KubernetesCPU(applicable(a.LimitCPUs)), DockerCPUs(applicable(a.LimitCPUs)), raised(a.LimitCPUs))
	}
	fmt.Fprintf(w, "burst that absorbs every spike above %s CPUs: %s of CPU time", cpus(a.BurstLimitCPUs), table.Ms(a.BurstMs))
	period := duration(a.PeriodMs)
	switch {
	case a.PeriodMs == 0 || a.BurstMs == 0: // a file from before the cap was kept; no burst needed
		fmt.Fprintln(w)
		return
	case a.BurstFits:
		fmt.Fprintf(w, ", within the kernel's cap of %s (the quota per %s period)\n", table.Ms(a.BurstCapMs), period)
		fmt.Fprintf(w, "  %s, burst %s%s\n", DockerQuota(a.BurstLimitCPUs, period), table.Ms(a.BurstMs), noBurstFlag)
		return
	}
	fmt.Fprintf(w, "\n  above the kernel's cap of %s (the quota per %s period): %s\n", table.Ms(a.BurstCapMs), period, needs(a))
	if a.FitPeriodMs != nil {
		fmt.Fprintf(w, "  at --period %v: %s, burst %s%s\n", duration(*a.FitPeriodMs), DockerQuota(a.BurstLimitCPUs, duration(*a.FitPeriodMs)), table.Ms(a.BurstMs), noBurstFlag)
	}
	if a.FitLimitCPUs != nil {
		l := *a.FitLimitCPUs
		fmt.Fprintf(w, "  at %s CPUs: %s · ", cpus(l), KubernetesCPU(l))
		if *a.FitBurstMs == 0 {
			fmt.Fprintf(w, "%s, no burst\n", DockerCPUs(l))
		} else {
			fmt.Fprintf(w, "%s, burst %s%s\n", DockerQuota(l, period), table.Ms(*a.FitBurstMs), noBurstFlag)
		}
	}
}

// applicable is a limit of cpus as one can be set at Docker's and the
// kubelet's default period: at least the kernel's 1 ms of quota per 100 ms
// (0.01 CPUs, Docker's least --cpus).
func applicable(c float64) float64 {
	return math.Max(c, float64(config.MinQuota)/float64(config.DefaultPeriod))
}

// raised says where applicable raised the limit.
func raised(c float64) string {
	if a := applicable(c); a != c {
		return fmt.Sprintf(" (raised from %s CPUs to the kernel's least quota, %v per %v period)", strconv.FormatFloat(c, 'g', 3, 64), config.MinQuota, config.DefaultPeriod)
	}
	return ""
}

const noBurstFlag = " (docker run has no burst flag: cpu.cfs_burst_us, or cpu.max.burst on v2)"

// needs says what makes room for a burst above the kernel's cap.
func needs(a Advice) string {
	var ways []string
	if a.FitPeriodMs != nil {
		ways = append(ways, fmt.Sprintf("--period %v", duration(*a.FitPeriodMs)))
	}
	if a.FitLimitCPUs != nil {
		ways = append(ways, fmt.Sprintf("a limit of %s CPUs", cpus(*a.FitLimitCPUs)))
	}
	switch len(ways) {
	case 0:
		return fmt.Sprintf("neither a period up to %v nor a limit up to %d CPUs makes room for it", config.MaxPeriod, MaxLimitCPUs)
	case 1:
		if a.FitPeriodMs == nil {
			return fmt.Sprintf("needs %s (no period up to %v has room)", ways[0], config.MaxPeriod)
		}
		return fmt.Sprintf("needs %s (no limit up to %d CPUs has room)", ways[0], MaxLimitCPUs)
	}
	return "needs " + ways[0] + ", or " + ways[1]
}

func duration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}
