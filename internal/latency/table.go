package latency

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Row is one configuration's outcome: a report, or why it was skipped
// (the rows sweep.Loop gives back).
type Row = sweep.Outcome[*report.Latency]

// Formats are latency's output formats.
var Formats = append([]string{"json", "text", "csv", "markdown"}, render.CIFormats...)

// Write writes rows in format. JSON is one object for a single
// configuration given without lists, an array otherwise (list says which).
// The formats CI tools read hold the configurations that ran, a
// benchmark each. The tables show the columns v chooses; text fits v's
// width (table.Fit).
func Write(w io.Writer, rows []Row, format string, list bool, v table.View) error {
	var reports []*report.Latency
	for _, r := range rows {
		if r.Report != nil {
			reports = append(reports, r.Report)
		}
	}
	switch format {
	case "json":
		if !list && len(reports) == 1 {
			return report.WriteJSON(w, reports[0])
		}
		return report.WriteJSON(w, reports)
	case render.Gobench, render.GitHubActionBenchmark, render.BMF:
		return render.WriteLatencies(w, reports, format)
	}
	layout, head := build, header
	if onInstances(rows) {
		layout, head = buildInstances, instancesHeader
	}
	if targetHeader(rows) != "" {
		layout, head = buildTarget, targetHeader
	}
	switch format {
	case "csv":
		return table.CSV(w, table.Pick(layout(rows, nil), v.Columns))
	case "markdown":
		return table.Markdown(w, table.Pick(layout(rows, &table.Notes{}), v.Columns))
	}
	// A warning every row has is said once, above the table, not in
	// every row's note.
	rows, shared := sharedWarnings(rows)
	if err := table.WriteText(w, head(rows)+table.Wrap(shared, v.Width), layout(rows, &table.Notes{}), v); err != nil {
		return err
	}
	_, err := io.WriteString(w, table.Wrap(targetLines(rows)+traced(rows), v.Width))
	return err
}

// Columns are the names --columns takes for rows whose configurations
// have keys (the swept flags), on instances or not.
func Columns(keys []string, instances bool) []string {
	metrics := columns
	if instances {
		metrics = instanceColumns
	}
	return slices.Concat(keys, metrics, []string{"note"})
}

// traced is --trace's lines under the table, a configuration each: what
// the kernel's throttle events add up to against the counter, and how
// much of the p99 request's time was throttling; then what the p99
// requests spent their time on (the breakdown).
func traced(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		rep := r.Report
		if rep == nil || rep.ThrottleEvents == nil {
			continue
		}
		e := rep.ThrottleEvents
		line := fmt.Sprintf("%s on %s, %s in total", words.N(e.Count, "throttle event"), words.N(len(e.CPUs), "CPU"), table.MsSpaced(e.TotalMs))
		if a := e.Agreement; a != nil {
			line += fmt.Sprintf(" (cpu.stat: %s)", table.MsSpaced(a.CounterMs))
		}
		if rep.RequestThrottles != nil {
			if l := throttle.Line(*rep.RequestThrottles); l != "" {
				line += fmt.Sprintf("; %d of %s met one; %s", rep.ThrottledRequests, words.N(rep.Completed, "request"), l)
			}
		}
		what := "traced"
		if d := sweep.Describe(r.Config); d != "" {
			what += " " + d
		}
		fmt.Fprintf(&b, "%s: %s\n", what, line)
		if rep.RequestThrottles != nil {
			if l := throttle.BreakdownLine(rep.Breakdown, "requests"); l != "" {
				fmt.Fprintf(&b, "%s: %s\n", what, l)
			}
		}
	}
	return b.String()
}

// columns are the metrics of a row, after the swept values.
// quota_util is usage.quota_utilisation: next to throttled, so that a run
// throttled in many periods while using little of their quota shows.
// wait_share is contention.wait_share: how much the work waited for CPUs
// others held.
// Each of p50, p99 and p99.9 has its 95% interval beside it (low–high).
var columns = []string{"offered_rps", "achieved_rps", "completed", "dropped", "cpu_util", "peak_cpus_100ms",
	"mean_ms", "p50_ms", "p50_ci95", "p90_ms", "p99_ms", "p99_ci95", "p999_ms", "p999_ci95", "max_ms", "throttled", "quota_util", "bursts", "offered_load", "wait_share"}

// importance orders them for a narrow terminal: the first four, the
// median, the tail, how sure it is and how often the quota ran out, are
// always shown; then the far tail, what explains a tail (requests
// dropped, the quota's use, burst), the rest of the distribution, and
// last what the schedule fixed (the offered rate and load) or a total
// says again.
var importance = []string{"p50_ms", "p99_ms", "p99_ci95", "throttled",
	"p999_ms", "p90_ms", "dropped", "wait_share", "quota_util", "bursts", "p50_ci95", "max_ms", "p999_ci95", "mean_ms", "achieved_rps",
	"cpu_util", "peak_cpus_100ms", "offered_load", "completed", "offered_rps"}

// build lays rows out: one column per swept parameter, the metrics and a
// note (table.Configs). For people (notes non-nil) numbers are rounded;
// CSV (notes nil) has full precision.
func build(rows []Row, notes *table.Notes) *table.Table {
	return lay(rows, notes, table.Ranked(columns, importance, 4), func(rep *report.Latency) []string { return metrics(rep, notes != nil) })
}

// lay is what latency's tables share: the swept parameters, the metrics
// (from metrics, for a row that ran) and a note, laid out as a sweep's
// (sweep.Lay).
func lay(rows []Row, notes *table.Notes, columns []table.Column, metrics func(*report.Latency) []string) *table.Table {
	return sweep.Lay(rows, notes, columns, func(rep *report.Latency) ([]string, []string) { return metrics(rep), report.Texts(rep.Warnings) })
}

// metrics are an open loop's cells under columns; people get them rounded.
func metrics(rep *report.Latency, people bool) []string {
	f := func(v float64, prec int) string { return table.Number(v, prec, people) }
	opt := func(v *float64, p int) string {
		if v == nil {
			return ""
		}
		return f(*v, p)
	}
	th := rep.Throttling
	throttled, bursts := "", ""
	if th.NrThrottled != nil && th.NrPeriods != nil {
		throttled = fmt.Sprintf("%d/%d", *th.NrThrottled, *th.NrPeriods)
	}
	if th.NrBursts != nil {
		bursts = strconv.FormatUint(*th.NrBursts, 10)
	}
	l, ci := rep.LatencyMs, rep.LatencyMsCI95
	if ci == nil {
		ci = &report.LatencyCI95{}
	}
	lf := func(v float64) string { return figure(l, v, people) }
	return []string{
		f(rep.OfferedRPS, 1), f(rep.AchievedRPS, 1), strconv.Itoa(rep.Completed), strconv.Itoa(rep.Dropped),
		opt(rep.CPUUtilisation, 3), opt(rep.PeakCPUs100ms, 2),
		lf(l.Mean), lf(l.P50), interval(ci.P50, people), lf(l.P90), lf(l.P99), interval(ci.P99, people), lf(l.P999), interval(ci.P999, people), lf(l.Max),
		throttled, opt(rep.Usage.QuotaUtilisation, 3), bursts, f(rep.Model.OfferedLoad, 3), waitShare(rep.Contention, people)}
}

// waitShare is contention.wait_share's cell: the share of the time the
// work was runnable (and not throttled) that it waited for CPUs others
// held; empty where it was not read.
func waitShare(c *report.Contention, people bool) string {
	if c == nil {
		return ""
	}
	if people {
		return fmt.Sprintf("%.0f%%", 100*c.WaitShare)
	}
	return strconv.FormatFloat(c.WaitShare, 'g', -1, 64)
}

// figure is a response time's cell: for people 2 decimals, and where there
// was no response "–" (CSV: empty), never 0.00.
func figure(l report.LatencyMs, v float64, people bool) string {
	switch {
	case !l.None:
		return table.Number(v, 2, people)
	case people:
		return "–"
	}
	return ""
}

// interval is a 95% interval's cell, "low–high" (an en dash, in every
// format); empty where there is none.
func interval(ci *[2]float64, people bool) string {
	if ci == nil {
		return ""
	}
	return table.Number(ci[0], 2, people) + "–" + table.Number(ci[1], 2, people)
}

// header says, above the text table, what every row shares: the
// arrivals, the request and how its CPU work was made, and where it ran.
func header(rows []Row) string {
	for _, r := range rows {
		if r.Report == nil {
			continue
		}
		rep := r.Report
		c := rep.Config
		arr := c.Arrivals
		if c.Arrivals == "onoff" {
			arr = fmt.Sprintf("onoff (%v on, %v off)", table.MsSpaced(c.OnMs), table.MsSpaced(c.OffMs))
		}
		cal := rep.Calibration
		where := fmt.Sprintf("cgroup v%d, the current one: %s", rep.Cgroup.Version, rep.Cgroup.Path)
		if rep.Cgroup.Mode == "created" {
			where = fmt.Sprintf("cgroup v%d, a slice created for each configuration (the first: %s)", rep.Cgroup.Version, rep.Cgroup.Path)
		}
		return fmt.Sprintf("open loop: %s arrivals for %gs (seed %d), %s, queue %d, wait %v per request\n"+
			"work: a loop run until the thread's CPU clock has advanced by --work; one iteration is a %s, %.0f per ms (median of %d rounds timed by %s)\n"+
			"%s; response time = completion − scheduled arrival\n",
			arr, c.DurationS, c.Seed, words.N(c.Workers, "worker"), c.Queue, time.Duration(c.WaitMs*float64(time.Millisecond)),
			cal.Loop, cal.IterationsPerMs, cal.Rounds, cal.Clock, where)
	}
	return ""
}
