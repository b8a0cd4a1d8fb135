package inspect

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Formats are the output formats, the default first.
var Formats = []string{"text", "json"}

// Write writes r in format (one of Formats).
func Write(w io.Writer, r *Report, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "text":
		_, err := io.WriteString(w, Text(r))
		return err
	}
	return fmt.Errorf("unknown format %q", format)
}

// maxSiblingLines bounds the text's core → threads table: a big machine's
// full list is in the JSON.
const (
	coresPerLine    = 4
	maxSiblingLines = 8
)

// Text is the report for a person: short aligned sections.
func Text(r *Report) string {
	var b strings.Builder
	row := func(label, format string, a ...any) {
		fmt.Fprintf(&b, "  %-11s %s\n", label, fmt.Sprintf(format, a...))
	}
	c := r.CPUs
	b.WriteString("CPUs\n")
	row("online", "%s (%d)", list(c.Online), len(c.Online))
	if len(c.Offline) > 0 {
		row("offline", "%s (%d)", list(c.Offline), len(c.Offline))
	}
	smt := "SMT off"
	if c.SMT {
		smt = "SMT on"
	}
	threads := words.N(c.ThreadsPerCore, "thread") + " each"
	if lo, hi := threadRange(c.Siblings); lo != hi {
		threads = fmt.Sprintf("%d to %d threads", lo, hi)
	}
	row("cores", "%d, %s: %s", c.Cores, threads, smt)
	row("sockets", "%d; NUMA nodes %d", c.Sockets, c.NUMANodes)
	for i, line := range siblingLines(c.Siblings) {
		label := ""
		if i == 0 {
			label = "siblings"
		}
		row(label, "%s", line)
	}
	affinity := "unknown"
	if c.Affinity != nil {
		affinity = fmt.Sprintf("%s (%d)", list(c.Affinity), len(c.Affinity))
	}
	row("affinity", "%s; runtime.NumCPU %d", affinity, c.NumCPU)

	cg := r.Cgroup
	b.WriteString("cgroup\n")
	switch {
	case cg.Version == 0:
		row("mode", "%s; no hierarchy with the cpu controller", cg.Mode)
	case cg.Mode == cgroup.ModeHybrid && cg.Version == 1:
		row("mode", "v1, hybrid: cpu on v1, cgroup2 at %s", cg.Unified)
	case cg.Mode == cgroup.ModeHybrid:
		row("mode", "v2, hybrid: cpu on cgroup2 at %s, v1 hierarchies beside it", cg.Unified)
	default:
		row("mode", "v%d only", cg.Version)
	}
	if cg.Version != 0 {
		row("cgroup", "%s at %s", cg.Path, cg.Dir)
		if len(cg.Levels) > 0 {
			row("limits", "%s", limits(cg.Levels[0]))
			var limited []Level
			for _, l := range cg.Levels[1:] {
				if l.QuotaUs > 0 {
					limited = append(limited, l)
				}
			}
			switch {
			case len(cg.Levels) == 1:
				row("ancestors", "none in sight: this is the top of the hierarchy")
			case len(limited) == 0:
				row("ancestors", "%d in sight, none limited", len(cg.Levels)-1)
			}
			for i, l := range limited {
				label := ""
				if i == 0 {
					label = "ancestors"
				}
				row(label, "%s: %s", l.Path, limits(l))
			}
		}
		if cg.EffectiveCPUs != nil {
			row("effective", "%s CPUs", num(*cg.EffectiveCPUs))
		}
	}
	if s := cg.Cpuset; s != nil {
		written := list(s.CPUs) + " written"
		if len(s.CPUs) == 0 {
			written = "none written"
		}
		row("cpuset", "%s effective, %s, at %s", list(s.Effective), written, s.Dir)
	} else {
		row("cpuset", "none (no cpuset controller)")
	}
	if cg.Error != "" {
		row("error", "%s", cg.Error)
	}

	b.WriteString("kernel\n")
	release := r.Kernel.Release
	if release == "" {
		release = "unknown"
	}
	row("release", "%s", release)
	switch bs := r.Kernel.BurstSupported; {
	case bs == nil:
		row("burst", "unknown")
	case *bs:
		row("burst", "supported (%s)", r.Kernel.BurstEvidence)
	default:
		row("burst", "not supported (%s)", missing(r.Kernel.BurstEvidence))
	}

	b.WriteString("Go\n")
	row("version", "%s", r.Go.Version)
	env := ""
	if r.Go.GOMAXPROCSEnv != "" {
		env = fmt.Sprintf(" (GOMAXPROCS=%s in the environment)", r.Go.GOMAXPROCSEnv)
	}
	row("GOMAXPROCS", "%d by default%s", r.Go.GOMAXPROCSDefault, env)

	b.WriteString("here\n")
	if d := r.CgroupDriver; d != nil {
		row("driver", "%s (%s)", d.Name, d.Why)
	}
	if r.CanCreateSlice {
		row("slices", "can be created: %s", r.SliceCheck)
	} else {
		row("slices", "cannot be created: %s", r.SliceCheck)
	}
	if r.Tracing.Available {
		row("tracing", "throttle events can be traced (--trace): %s", r.Tracing.Why)
	} else {
		row("tracing", "throttle events cannot be traced (--trace): %s", r.Tracing.Why)
	}
	if m := r.Tracing.Model; m != "" {
		row("throttling", "%s", throttleModels[m])
	}
	if m := r.Machine; m != nil {
		row("busy", "%.2f of %s on average over %vms", m.BusyCPUs, words.N(len(c.Online), "CPU"), m.WindowMs)
	}

	b.WriteString("caveats\n")
	if len(r.Caveats) == 0 {
		b.WriteString("  none\n")
	}
	for _, cv := range r.Caveats {
		fmt.Fprintf(&b, "  - %s\n", cv)
	}
	return b.String()
}

// siblingLines shows each core's threads, a few cores per line.
func siblingLines(siblings [][]int) []string {
	var cells []string
	for i, s := range siblings {
		cells = append(cells, fmt.Sprintf("%-14s", fmt.Sprintf("core %d → %s", i, list(s))))
	}
	var lines []string
	for i := 0; i < len(cells); i += coresPerLine {
		if len(lines) == maxSiblingLines {
			lines = append(lines, fmt.Sprintf("… %d more cores (--format json lists all)", len(cells)-i))
			break
		}
		lines = append(lines, strings.TrimRight(strings.Join(cells[i:min(i+coresPerLine, len(cells))], " "), " "))
	}
	return lines
}

func limits(l Level) string {
	if l.PeriodUs == nil {
		return "none: no bandwidth files (the root cgroup, or cpu not enabled for it)"
	}
	if l.QuotaUs < 0 {
		return fmt.Sprintf("unlimited (period %v)", us(*l.PeriodUs))
	}
	s := fmt.Sprintf("%v per %v (%s CPUs)", us(l.QuotaUs), us(*l.PeriodUs), num(*l.CPUs))
	if l.BurstUs > 0 {
		s += fmt.Sprintf(", burst %v", us(l.BurstUs))
	}
	return s
}

func list(ids []int) string {
	if len(ids) == 0 {
		return "none"
	}
	return cpulist.Format(ids)
}

// throttleModels word each throttle model (throttle.Model*) for people.
var throttleModels = map[string]string{
	throttle.ModelQueue:      "this kernel throttles whole run queues and keeps no throttled clock of their own (before 6.6): a traced hold ends at the unthrottle where the tracer can hook it, else at its group's next run where the load-tracking clock is scaled",
	throttle.ModelQueueClock: "this kernel throttles whole run queues, each with its own throttled clock (6.6-6.17): a traced hold ends at each unthrottle it waited through",
	throttle.ModelTask:       "this kernel throttles threads one by one, on their way back to user space (6.18+): a traced hold starts where the thread meets the throttle",
}
