package latency

import (
	"fmt"
	"strings"

	"github.com/throttlebench/throttlebench/internal/plural"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
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
			where = fmt.Sprintf("server: %s, started in a slice created for each configuration (cgroup v%d; the first: %s)", strings.Join(t.Serve, " "), rep.Cgroup.Version, rep.Cgroup.Path)
		case t.TargetCgroup != "":
			where = fmt.Sprintf("server: already running, in cgroup v%d %s (read, never written)", rep.Cgroup.Version, rep.Cgroup.Path)
		default:
			where = "server: already running, in a cgroup not named (no --cgroup): no throttling counters"
		}
		return fmt.Sprintf("open loop: %s arrivals for %gs (seed %d); %s %s over %s, timeout %s per request\n"+
			"client: this process, outside any slice; %s; response time = end of the response − scheduled arrival\n",
			arr, c.DurationS, c.Seed, t.Method, t.Target, plural.N(t.Connections, "connection"), timeout, where)
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
		fmt.Fprintf(&b, "%s: %d sent, %d responses (%d 2xx), %d HTTP errors, %d timeouts, %d connection errors, %d failed",
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
