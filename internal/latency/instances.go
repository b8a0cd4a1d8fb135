package latency

import (
	"fmt"
	"strconv"
	"time"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/words"
)

// onInstances says whether rows ran on instances (latency --instances):
// they then have a table of their own.
func onInstances(rows []Row) bool {
	for _, r := range rows {
		if r.Report != nil {
			return r.Report.InstancesResult != nil
		}
	}
	return false
}

// instanceColumns are the metrics of a row on instances, after the swept
// values: what the instances cost, then where the response time went
// (means of its parts, then percentiles of the whole), then the bills.
var instanceColumns = []string{"concurrency", "requests", "failed", "instances_started", "cold_starts", "peak_instances", "peak_rss_mib",
	"cpu_ms", "cold_start_ms", "wait_instance_ms", "queue_ms", "service_ms", "mean_ms", "p50_ms", "p99_ms", "max_ms", "throttled",
	"request_gb_s", "instance_cpu_s"}

// instanceImportance orders them for a narrow terminal: the first five,
// cold starts, the response time's mean and tail and the two bills, are
// always shown; then how often the quota ran out and where the time went,
// memory and CPU, and last what the policy or the schedule fixed.
var instanceImportance = []string{"cold_starts", "mean_ms", "p99_ms", "request_gb_s", "instance_cpu_s",
	"throttled", "wait_instance_ms", "service_ms", "peak_rss_mib", "cpu_ms", "failed", "instances_started",
	"cold_start_ms", "queue_ms", "p50_ms", "max_ms", "peak_instances", "concurrency", "requests"}

// buildInstances lays out rows on instances as build does the open loop's.
func buildInstances(rows []Row, notes *table.Notes) *table.Table {
	return lay(rows, notes, table.Ranked(instanceColumns, instanceImportance, 5), func(rep *report.Latency) []string { return instanceMetrics(rep, notes != nil) })
}

// instanceMetrics are a report's cells under instanceColumns, nil (a
// skipped row) for a report that did not run on instances; people get
// them rounded.
func instanceMetrics(rep *report.Latency, people bool) []string {
	res := rep.InstancesResult
	if res == nil {
		return nil
	}
	f := func(v float64, prec int) string { return table.Number(v, prec, people) }
	cpu := ""
	if rep.CPUMs != nil {
		cpu = f(*rep.CPUMs, 1)
	}
	throttled := ""
	if th := rep.Throttling; th.NrThrottled != nil && th.NrPeriods != nil {
		throttled = fmt.Sprintf("%d/%d", *th.NrThrottled, *th.NrPeriods)
	}
	p, l := res.PercentilesMs, rep.LatencyMs
	// Summaries of nothing are blank, not 0: no request was served, or no
	// instance became ready.
	served := func(v float64) string {
		if rep.Completed == 0 {
			return ""
		}
		return f(v, 1)
	}
	coldStart := ""
	if res.ColdStarts > 0 {
		coldStart = f(res.ColdStartMs.Mean, 1)
	}
	return []string{
		strconv.Itoa(rep.Config.Concurrency), strconv.Itoa(rep.Offered), strconv.Itoa(res.Failed),
		strconv.Itoa(res.InstancesStarted), strconv.Itoa(res.ColdStarts), strconv.Itoa(res.PeakInstances),
		f(float64(res.PeakRSSBytes)/(1<<20), 1), cpu, coldStart,
		served(p.WaitInstance.Mean), served(p.Queue.Mean), served(p.Service.Mean),
		served(l.Mean), served(l.P50), served(l.P99), served(l.Max), throttled,
		f(res.Bill.RequestGBs, 4), f(res.Bill.InstanceCPUs, 3)}
}

// instancesHeader says, above the text table, what every row on
// instances shares: the requests, an instance's cold start, and where
// they ran.
func instancesHeader(rows []Row) string {
	for _, r := range rows {
		if r.Report == nil || r.Report.InstancesResult == nil {
			continue
		}
		rep := r.Report
		c := rep.Config
		arr := fmt.Sprintf("%s arrivals for %gs (seed %d)", c.Arrivals, c.DurationS, c.Seed)
		switch c.Arrivals {
		case "once":
			arr = fmt.Sprintf("%s at the same instant (--arrivals once)", words.N(c.Count, "request"))
		case "onoff":
			arr = fmt.Sprintf("onoff (%v on, %v off) arrivals for %gs", table.MsSpaced(c.OnMs), table.MsSpaced(c.OffMs), c.DurationS)
		}
		if c.InstancesConfig == nil {
			return ""
		}
		ic := c.InstancesConfig
		return fmt.Sprintf("instances: %s; each request %v of CPU, then a wait of %v\n"+
			"an instance: a process in a slice of its own with the run's limits (cgroup v%d; the first: %s); its cold start %v of CPU and %s touched; retired after %v idle\n"+
			"the dispatcher sits outside every slice; response = reply − scheduled arrival = wait_instance + queue + service (means) and the reply's way back\n"+
			"bills: request_gb_s = Σ service rounded up to %v × its instance's peak RSS (GB = 2³⁰ B); instance_cpu_s = Σ instance lifetimes × the CPU share, %g\n",
			arr, dur(c.WorkMs), dur(c.WaitMs), rep.Cgroup.Version, rep.Cgroup.Path, dur(ic.InitMs), bytesText(ic.InitMemoryBytes),
			dur(ic.KeepAliveMs), dur(ic.BillGranularityMs), share(rep))
	}
	return ""
}

// share is the CPU share an instance is billed for; a report written
// before bill.cpu_share was has its effective CPUs instead.
func share(r *report.Latency) float64 {
	if s := r.InstancesResult.Bill.CPUShare; s > 0 {
		return s
	}
	return r.Cgroup.EffectiveCPUs
}

func dur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// bytesText shows a size in MiB, or bytes when it is small.
func bytesText(b int64) string {
	if b < 1<<20 {
		return strconv.FormatInt(b, 10) + " B"
	}
	return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB"
}
