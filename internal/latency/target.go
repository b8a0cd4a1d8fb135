package latency

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/words"
)

// targetHeader says, above the text table of latency --target, what every
// row shares: the arrivals, the requests, the client and where the server
// ran; "" when the rows are not a target's.
func targetHeader(rows []Row) string {
	for _, r := range rows {
		rep := r.Report
		if rep == nil || rep.Config.TargetConfig == nil {
			continue
		}
		c, t := rep.Config, rep.Config.TargetConfig
		arr := c.Arrivals
		if c.Arrivals == "onoff" {
			arr = fmt.Sprintf("onoff (%v on, %v off)", table.MsSpaced(c.OnMs), table.MsSpaced(c.OffMs))
		}
		timeout := "none"
		if t.RequestTimeoutMs > 0 {
			timeout = table.MsSpaced(t.RequestTimeoutMs)
		}
		var where string
		switch {
		case len(t.Serve) > 0:
			where = fmt.Sprintf("server: %s, started in a slice created for each configuration (cgroup v%d; the first: %s)", words.Argv(t.Serve), rep.Cgroup.Version, rep.Cgroup.Path)
		case t.TargetCgroup != "":
			where = fmt.Sprintf("server: already running, in cgroup v%d %s (read, never written)", rep.Cgroup.Version, rep.Cgroup.Path)
		default:
			where = "server: already running, in a cgroup not named (no --cgroup): no throttling counters"
		}
		// The rate, where every row has the same (a list over it says
		// it in its column).
		rate := fmt.Sprintf(" at %g requests/s", c.Rate)
		if slices.ContainsFunc(rows, func(o Row) bool { return o.Report != nil && o.Report.Config.Rate != c.Rate }) {
			rate = ""
		}
		return fmt.Sprintf("open loop: %s arrivals%s for %gs (seed %d); %s %s over %s, timeout %s per request\n"+
			"client: this process, outside any slice; %s; response time = end of the response − scheduled arrival\n",
			arr, rate, c.DurationS, c.Seed, t.Method, t.Target, words.N(t.Connections, "connection"), timeout, where)
	}
	return ""
}

// targetLines are the requests' outcomes under the table, a line per
// configuration: none is dropped from the count.
func targetLines(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		rep := r.Report
		if rep == nil || rep.TargetResult == nil {
			continue
		}
		h := rep.HTTP
		what := "requests"
		if d := sweep.Describe(r.Config); d != "" {
			what += " " + d
		}
		// http.failed is a malformed response: "failed" here contradicted
		// the table's failed column, the failures by the rule (issue 33).
		fmt.Fprintf(&b, "%s: %d sent, %d responses (%d 2xx), %d HTTP errors, %d timeouts, %d connection errors, %d malformed",
			what, h.Requests, h.Responses, h.Status2xx, h.HTTPErrors, h.Timeouts, h.ConnectionErrors, h.Failed)
		if h.Cancelled > 0 {
			fmt.Fprintf(&b, ", %d cancelled", h.Cancelled)
		}
		if rep.ServerExited != "" {
			fmt.Fprintf(&b, "; the server exited during the run (%s)", rep.ServerExited)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// targetColumns are a --target table's metrics: the open loop's without
// what only the built-in workload has (dropped: a target's requests all
// go; offered_load: rate × work, and the server's work is unknown), with
// the requests that failed (timeouts, connection errors, statuses
// --accept-status leaves out).
var targetColumns, targetImportance = func() ([]string, []string) {
	builtin := func(c string) bool { return c == "dropped" || c == "offered_load" }
	cols := slices.DeleteFunc(slices.Clone(columns), builtin)
	cols = slices.Insert(cols, slices.Index(cols, "completed")+1, "failed")
	imp := slices.DeleteFunc(slices.Clone(importance), builtin)
	imp = slices.Insert(imp, slices.Index(imp, "throttled")+1, "failed")
	return cols, imp
}()

// buildTarget lays out a --target's rows: the open loop's cells under
// targetColumns.
func buildTarget(rows []Row, notes *table.Notes) *table.Table {
	people := notes != nil
	return lay(rows, notes, table.Ranked(targetColumns, targetImportance, 4), func(rep *report.Latency) []string {
		all := metrics(rep, people)
		cell := map[string]string{}
		for i, c := range columns {
			cell[c] = all[i]
		}
		if rep.TargetResult != nil {
			h := rep.HTTP
			n := h.HTTPErrors + h.Timeouts + h.ConnectionErrors + h.Failed
			if h.Failures != nil {
				n = *h.Failures
			}
			cell["failed"] = strconv.Itoa(n)
		}
		out := make([]string, len(targetColumns))
		for i, c := range targetColumns {
			out[i] = cell[c]
		}
		return out
	})
}

// SharedWarnings takes out of rows (copies: the reports are not written
// to) the warnings every row that ran has, word for word and of the same
// kind, and returns them apart, to be said once; one row keeps its own.
func SharedWarnings(rows []Row) ([]Row, []report.Warning) {
	var ran []*report.Latency
	for _, r := range rows {
		if r.Report != nil {
			ran = append(ran, r.Report)
		}
	}
	if len(ran) < 2 {
		return rows, nil
	}
	var shared []report.Warning
	for _, w := range ran[0].Warnings {
		if !slices.Contains(shared, w) && !slices.ContainsFunc(ran[1:], func(r *report.Latency) bool { return !slices.Contains(r.Warnings, w) }) {
			shared = append(shared, w)
		}
	}
	if len(shared) == 0 {
		return rows, nil
	}
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = r
		if r.Report != nil {
			cp := *r.Report
			cp.Warnings = slices.DeleteFunc(slices.Clone(cp.Warnings), func(w report.Warning) bool { return slices.Contains(shared, w) })
			out[i].Report = &cp
		}
	}
	return out, shared
}

// sharedWarnings is SharedWarnings with the shared ones as lines for
// above the text table: "every configuration: …".
func sharedWarnings(rows []Row) ([]Row, string) {
	rows, shared := SharedWarnings(rows)
	var b strings.Builder
	for _, w := range shared {
		b.WriteString("every configuration: " + w.Text + "\n")
	}
	return rows, b.String()
}

// TargetColumns are the names --columns takes for a --target's rows.
func TargetColumns(keys []string) []string {
	return slices.Concat(keys, targetColumns, []string{"note"})
}
