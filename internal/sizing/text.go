package sizing

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/plural"
	"github.com/throttlebench/throttlebench/internal/table"
)

// Write writes r as format: json, or text (the arms, one row each, and the
// recommendation, then the warnings), its lines of prose wrapped at width
// (0: not wrapped).
func Write(w io.Writer, r Result, format string, width int) error {
	if format == "json" {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(r)
	}
	var head strings.Builder
	stat := strings.SplitN(r.SLO, "<", 2)[0]
	fmt.Fprintf(&head, "size %s on the %s loop: windows of %s, period %v, confidence %s%%\n", r.SLO, r.Loop, r.Window,
		time.Duration(r.PeriodUs)*time.Microsecond, strconv.FormatFloat(100*r.Confidence, 'f', -1, 64))
	if r.BoundMs != nil {
		fmt.Fprintf(&head, "a window passes when its %s ≤ %s ms", stat, table.Sig(*r.BoundMs, 3))
		if r.FloorMs != nil {
			fmt.Fprintf(&head, " (the harness's own floor: %s ms)", table.Sig(*r.FloorMs, 3))
		}
		head.WriteString("\n")
	}
	if r.Range != nil {
		fmt.Fprintf(&head, "grid: %d levels, %s to %s CPUs (%s)\n", len(r.Range.Levels), table.Sig(r.Range.MinCPUs, 3), table.Sig(r.Range.MaxCPUs, 3), r.Range.Default)
	}
	if _, err := io.WriteString(w, table.Wrap(head.String(), width)+"\n"); err != nil {
		return err
	}
	t := &table.Table{Columns: []table.Column{{Name: "cpus"}, {Name: "quota", Align: table.Right}, {Name: "burst", Align: table.Right}, {Name: "windows", Align: table.Right},
		{Name: stat + "_ms", Align: table.Right}, {Name: "verdict"}, {Name: "confidence", Align: table.Right}}}
	for _, a := range r.Arms {
		cpus, quota := "unlimited", "max"
		if a.CPUs != nil {
			cpus, quota = table.Sig(*a.CPUs, 3), (time.Duration(*a.QuotaUs) * time.Microsecond).String()
		}
		if a.Rule != "" {
			cpus += " (" + a.Rule + ")"
		}
		fig := "-"
		if a.FigureMs != nil {
			fig = table.Sig(*a.FigureMs, 3)
		}
		if ci := a.FigureMsCI95; ci != nil {
			fig += " [" + table.Sig(ci[0], 3) + ", " + table.Sig(ci[1], 3) + "]"
		}
		t.Rows = append(t.Rows, []string{cpus, quota, (time.Duration(a.BurstUs) * time.Microsecond).String(), fmt.Sprintf("%d/%d", a.Passes, len(a.Windows)), fig, string(a.Verdict), fmt.Sprintf("%.0f%%", 100*a.Confidence)})
	}
	if err := table.Text(w, t); err != nil {
		return err
	}
	tail := "\n" + r.recommendationLine() + "\n"
	for _, s := range r.Warnings {
		tail += "warning: " + s + "\n"
	}
	_, err := io.WriteString(w, table.Wrap(tail, width))
	return err
}

// recommendationLine is the recommendation in one line, as Kubernetes and
// Docker spell it.
func (r Result) recommendationLine() string {
	rec := r.Recommendation
	switch {
	case rec == nil:
		return "recommendation: none: not even the unlimited arm meets " + r.SLO
	case rec.Unlimited:
		return "recommendation: no limit: no level of the grid met " + r.SLO
	}
	cpus := table.Sig(*rec.CPUs, 3)
	s := fmt.Sprintf("recommendation: %s %s (quota %v per %v period): %s, %s", cpus, plural.Noun(*rec.CPUs, "CPU"),
		time.Duration(*rec.QuotaUs)*time.Microsecond, time.Duration(rec.PeriodUs)*time.Microsecond, rec.Kubernetes, rec.Docker)
	if rec.BurstUs > 0 {
		s += fmt.Sprintf("; burst %v (cpu.max.burst or cpu.cfs_burst_us: neither sets it)", time.Duration(rec.BurstUs)*time.Microsecond)
	}
	if r.Incomplete {
		s += " (so far: " + r.Stopped + ")"
	}
	return s
}
