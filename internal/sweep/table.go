package sweep

import (
	"io"
	"slices"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
)

// Row is one configuration of a sweep: its report, or the reason it was
// skipped.
type Row = Outcome[*report.Report]

// Outcome is how one configuration of a list ended: what it measured (R: a
// run's report in a sweep, a latency report in latency), or why it was
// skipped.
type Outcome[R any] struct {
	Config  Config
	Report  R
	Skipped string
}

// CostCPUSeconds is the normalised cost of an iteration, as in the AWS
// Lambda study: the CPUs paid for (quota/period, or the CPUs available when
// unlimited) × the mean duration.
func CostCPUSeconds(r *report.Report) float64 {
	return r.Cgroup.EffectiveCPUs * r.Stats.MeanMs / 1000
}

// spread is the report's spread.slowest_to_fastest: 1 when the workers
// kept pace, 0.5 when one ran two times slower than another.
var metricColumns = []string{"mean_ms", "p50_ms", "p99_ms", "cov", "throttled_fraction", "model_ratio", "cost_cpu_s", "spread"}

// importance orders them for a narrow terminal: the first three, the mean
// duration, its tail and how often the quota ran out, are always shown;
// then how far the CFS model explains it, what it costs, how it varies.
var importance = []string{"mean_ms", "p99_ms", "throttled_fraction", "model_ratio", "cost_cpu_s", "cov", "p50_ms", "spread"}

// build lays rows out as a table (table.Configs): one column per swept
// flag, the metrics, and a note. For people (notes non-nil) numbers have as
// many decimals as a person reads; CSV, for machines, has full precision
// (notes nil).
func build(rows []Row, notes *table.Notes) *table.Table {
	people := notes != nil
	// A command runs as one process: a person's table has no spread
	// column for a list of them (it was always 1.00); CSV keeps its
	// columns, the cell empty.
	cols, rank := metricColumns, importance
	noSpread := people && !slices.ContainsFunc(rows, func(r Row) bool { return r.Report != nil && !alone(r.Report) })
	if noSpread {
		cols, rank = metricColumns[:len(metricColumns)-1], importance[:len(importance)-1]
	}
	return Lay(rows, notes, table.Ranked(cols, rank, 3), func(rep *report.Report) ([]string, []string) {
		cells, warnings := metrics(rep, people), rep.Warnings
		if noSpread {
			cells = cells[:len(cols)]
		}
		if people {
			warnings = render.ForPeople(rep.Warnings)
		}
		return cells, report.Texts(warnings)
	})
}

// Lay is the one layout of a list of configurations, a sweep's or
// latency's: one column per swept flag, the metrics and a note
// (table.Configs). cells gives a row that ran its metrics under columns
// and the warnings its note shows; a skipped row shows why instead.
func Lay[R comparable](rows []Outcome[R], notes *table.Notes, columns []table.Column, cells func(R) (metrics, warnings []string)) *table.Table {
	var names []string
	if len(rows) > 0 {
		names = rows[0].Config.Flags()
	}
	var none R
	lines := make([]table.ConfigRow, len(rows))
	for i, r := range rows {
		lines[i] = table.ConfigRow{Params: r.Config.Values(), Skipped: r.Skipped}
		if r.Report != none {
			lines[i].Metrics, lines[i].Warnings = cells(r.Report)
		}
	}
	return table.Configs(names, columns, lines, notes)
}

// alone says whether rep's workload runs alone, one process per iteration
// (the command).
func alone(rep *report.Report) bool {
	spec, err := decl.Lookup(rep.Config.Workload)
	return err == nil && spec.Alone
}

// metrics are a report's cells under metricColumns; people get them
// rounded.
func metrics(rep *report.Report, people bool) []string {
	f := func(v float64, prec int) string { return table.Number(v, prec, people) }
	frac := ""
	if rep.Throttling.ThrottledFraction != nil {
		frac = f(*rep.Throttling.ThrottledFraction, 3)
	}
	// A result without the workers' operations (a file written before
	// they were counted, read by sweep --from) has no spread: its zero is
	// no measurement.
	spread := "-"
	if !people {
		spread = ""
	}
	if !alone(rep) && slices.ContainsFunc(rep.Workers, func(w report.Worker) bool { return w.Ops > 0 }) {
		spread = f(rep.Spread.SlowestToFastest, 2)
	}
	return []string{
		f(rep.Stats.MeanMs, 1), f(rep.Stats.P50Ms, 1), f(rep.Stats.P99Ms, 1), f(rep.Stats.CoV, 3),
		frac, f(rep.Model.Ratio, 2), f(CostCPUSeconds(rep), 4), spread}
}

// Columns are the names --columns takes for rows whose configurations
// have keys (the swept flags).
func Columns(keys []string) []string {
	return slices.Concat(keys, metricColumns, []string{"note"})
}

// WriteCSV writes a header and one line per row, the columns c chooses.
func WriteCSV(w io.Writer, rows []Row, c table.Columns) error {
	return table.CSV(w, table.Pick(build(rows, nil), c))
}

// WriteMarkdown writes a GitHub-flavoured table, the columns c chooses.
func WriteMarkdown(w io.Writer, rows []Row, c table.Columns) error {
	return table.Markdown(w, table.Pick(build(rows, &table.Notes{}), c))
}

// WriteText writes an aligned table for a terminal, fitted to v.
func WriteText(w io.Writer, rows []Row, v table.View) error {
	return table.WriteText(w, "", build(rows, &table.Notes{}), v)
}
