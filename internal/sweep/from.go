package sweep

import (
	"strconv"

	"github.com/throttlebench/throttlebench/internal/compare"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/report"
)

// FromReports lays results read back (a sweep's JSON, what collect
// recovered from a cluster) out as a sweep's rows, in the order given: one
// column for each setting that differs among them, outermost first: the
// node they ran on, then the configuration's keys (config.Params, read
// back as compare reads them), the CPU share as cpus (quota/period, as
// --cpus names it; max when unlimited) in place of the quota. When nothing differs, the CPU share alone. So the
// same limit on three nodes is one table with a node column, and one plot
// with a line per node.
func FromReports(reps []report.Report) []Row {
	type column struct {
		flag string
		get  func(r *report.Report) string
	}
	cols := []column{{"node", func(r *report.Report) string { return r.Host.Node }}}
	cpus := column{"cpus", cpusText}
	for _, p := range config.Params {
		switch {
		case p.Key == "":
		case p.Name == "quota":
			cols = append(cols, cpus)
		default:
			key := p.Key
			cols = append(cols, column{p.Name, func(r *report.Report) string { t, _ := compare.ReadKey(r, key); return t }})
		}
	}
	var shown []column
	for _, c := range cols {
		for i := range reps[min(1, len(reps)):] {
			if c.get(&reps[i+1]) != c.get(&reps[0]) {
				shown = append(shown, c)
				break
			}
		}
	}
	if len(shown) == 0 {
		shown = []column{cpus}
	}
	rows := make([]Row, len(reps))
	for i := range reps {
		r := &reps[i]
		var c Config
		for _, col := range shown {
			c = append(c, Param{Flag: col.flag, Value: col.get(r)})
		}
		rows[i] = Row{Config: c, Report: r}
	}
	return rows
}

// cpusText is a result's CPU share as --cpus writes it: quota/period.
func cpusText(r *report.Report) string {
	if r.Cgroup.QuotaUs < 0 || r.Cgroup.PeriodUs == nil || *r.Cgroup.PeriodUs <= 0 {
		return "max"
	}
	return strconv.FormatFloat(roundTo(float64(r.Cgroup.QuotaUs)/float64(*r.Cgroup.PeriodUs), 6), 'f', -1, 64)
}
