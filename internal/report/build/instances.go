package build

import (
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/instances"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/words"
	"gonum.org/v1/gonum/stat"
)

// InstanceRequest is one request as the runner recorded it.
type InstanceRequest struct {
	Arrival  time.Duration // scheduled, from the first arrival
	Instance int
	Cold     bool
	// The parts, valid when Failed is "".
	WaitInstance, Queue, Service, Response, CPU time.Duration
	Failed                                      string
}

// InstanceRecord is one instance as the runner recorded it.
type InstanceRecord struct {
	Started   time.Duration // from the first arrival
	ColdStart time.Duration // < 0: never ready
	InitCPU   time.Duration // < 0: unknown
	Lifetime  time.Duration
	Served    int
	CPU       time.Duration // < 0: unknown
	PeakRSS   int64
	Failed    string
}

// InstancesInput is everything a report of a run on instances is built
// from.
type InstancesInput struct {
	Open   runspec.OpenLoop // with Instances set
	Policy string           // --gomaxprocs as given
	// Where: the first instance's slice (each has one, all with the same
	// limits).
	Cgroup      bandwidth.Group
	Limits      bandwidth.Limits
	Chain       []bandwidth.Level
	NumCPU      int
	Host        report.Host
	GOMAXPROCS  int // in force in the instances
	Calibration bench.Calibration
	Requests    []InstanceRequest
	Instances   []InstanceRecord
	Started     int
	Peak        int
	PeakRSS     int64 // the sampled peak of the sum
	Stat        bandwidth.CPUStat
	Window      time.Duration // first arrival → last reply
	Late        time.Duration // the most the dispatcher was late with an arrival
	Background  Background
	Floor       *bench.Floor // the instances' floor; nil where unmeasured
}

// BuildInstances turns a run on instances into its report: latency's
// keys where they mean the same, and the instances' own.
func BuildInstances(in InstancesInput) *report.Latency {
	o, spec := in.Open, in.Open.Instances
	eff := bandwidth.EffectiveCPUs(in.Chain, in.NumCPU)
	// The concurrency in force: per-request serves one at a time whatever
	// was asked.
	concurrency := spec.Concurrency
	if p, err := instances.ParsePolicy(spec.Policy, spec.Concurrency, spec.KeepAlive); err == nil {
		concurrency = p.Concurrency
	}
	r := &report.Latency{
		SchemaVersion: report.SchemaVersion,
		Config: report.LatencyConfig{Rate: o.Rate, Arrivals: o.Arrivals, Count: o.Count, WorkMs: ms(o.Work), WaitMs: ms(o.Wait),
			DurationS: o.Duration.Seconds(), Seed: o.Seed, GOMAXPROCS: in.GOMAXPROCS, GOMAXPROCSPolicy: in.Policy,
			InstancesConfig: &report.InstancesConfig{Instances: spec.Policy, Concurrency: concurrency, InitMs: ms(spec.Init),
				InitMemoryBytes: spec.InitMemory, KeepAliveMs: ms(spec.KeepAlive), BillGranularityMs: ms(spec.BillGranularity)}},
		Cgroup:         cgroupBlock("created", in.Cgroup, in.Limits, in.Chain, eff),
		Host:           in.Host,
		Offered:        len(in.Requests),
		WindowMs:       ms(in.Window),
		Throttling:     throttling(in.Stat),
		DispatchLateMs: ms(in.Late),
		Calibration:    in.Calibration,
		Warnings:       []report.Warning{},
	}
	r.FloorMs, r.Floor = floorBlock(in.Floor)
	if o.Onoff() {
		r.Config.OnMs, r.Config.OffMs = ms(o.On), ms(o.Off)
	}
	res := &report.InstancesResult{InstancesStarted: in.Started, PeakInstances: in.Peak}
	r.InstancesResult = res

	// The requests: their rows, their parts, their bill.
	var parts [4][]time.Duration
	var billed []instances.BilledRequest
	var firstFailure string
	for i, q := range in.Requests {
		row := report.RequestRow{ID: i, ArrivalMs: ms(q.Arrival), Instance: q.Instance, Cold: q.Cold, Error: q.Failed}
		if q.Failed != "" {
			res.Failed++
			if firstFailure == "" {
				firstFailure = q.Failed
			}
			res.Requests = append(res.Requests, row)
			continue
		}
		r.Completed++
		for j, d := range []time.Duration{q.WaitInstance, q.Queue, q.Service, q.Response} {
			parts[j] = append(parts[j], max(d, 0))
		}
		row.WaitInstanceMs, row.QueueMs, row.ServiceMs = msOf(q.WaitInstance), msOf(q.Queue), msOf(q.Service)
		row.ResponseMs, row.CPUMs = msOf(q.Response), msOf(q.CPU)
		res.Requests = append(res.Requests, row)
		var mem int64
		if q.Instance >= 0 && q.Instance < len(in.Instances) {
			mem = in.Instances[q.Instance].PeakRSS
		}
		billed = append(billed, instances.BilledRequest{Duration: q.Service, MemoryBytes: mem})
	}
	res.PercentilesMs = report.PartsMs{WaitInstance: exactPercentiles(parts[0]), Queue: exactPercentiles(parts[1]),
		Service: exactPercentiles(parts[2]), Response: exactPercentiles(parts[3])}
	r.LatencyMs = res.PercentilesMs.Response
	r.Histogram = histogramOf(parts[3])
	r.LatencyMsCI95 = ci95(r.Histogram, r.LatencyMs)

	// The instances: their rows, their memory and CPU, their lifetimes.
	var lifetimes, colds []time.Duration
	var cpu time.Duration
	cpuUnknown := 0
	res.PeakRSSBytes = in.PeakRSS
	for id, x := range in.Instances {
		row := report.InstanceRow{ID: id, StartedMs: ms(x.Started), LifetimeMs: ms(x.Lifetime), Served: x.Served, PeakRSS: x.PeakRSS, Failed: x.Failed}
		if x.ColdStart >= 0 {
			row.ColdStartMs = msOf(x.ColdStart)
			colds = append(colds, x.ColdStart)
			res.ColdStarts++
		}
		if x.InitCPU >= 0 {
			row.InitCPUMs = msOf(x.InitCPU)
		}
		if x.CPU >= 0 {
			row.CPUMs = msOf(x.CPU)
			cpu += x.CPU
		} else {
			cpuUnknown++
		}
		if x.Failed != "" && x.ColdStart < 0 {
			res.FailedStarts++
		}
		res.PeakRSSBytes = max(res.PeakRSSBytes, x.PeakRSS)
		lifetimes = append(lifetimes, x.Lifetime)
		res.PerInstance = append(res.PerInstance, row)
	}
	res.ColdStartMs = exactPercentiles(colds)
	// The known instances' CPU, summed, even when some are unknown (a
	// warning says how many): null only when none is known.
	if cpuUnknown < len(in.Instances) {
		r.CPUMs = msOf(cpu)
	}
	// Billed for the share asked, as a VM or container of that size is,
	// not for what the machine or a parent's quota lets it use.
	// The schema's Bill is instances.Bill field for field: a conversion.
	res.Bill = instances.Compute(billed, lifetimes, spec.BillGranularity, instances.Share(in.Limits.Quota, in.Limits.Period, in.NumCPU))

	if span := max(o.Duration, in.Window); span > 0 {
		r.AchievedRPS = float64(r.Completed) / span.Seconds()
	}
	if o.Duration > 0 {
		r.OfferedRPS = float64(r.Offered) / o.Duration.Seconds()
	}
	r.Model.OfferedCPUs = o.Rate * o.Work.Seconds()
	if eff > 0 {
		r.Model.OfferedLoad = r.Model.OfferedCPUs / eff
	}
	r.Warnings = append(r.Warnings, CheckInstances(r, in.NumCPU, firstFailure, cpuUnknown, in.Background, DefaultThresholds)...)
	return r
}

// CheckInstances judges a built report of a run on instances; cpuUnknown
// instances' CPU time is missing from cpu_ms.
func CheckInstances(r *report.Latency, numCPU int, firstFailure string, cpuUnknown int, bg Background, th Thresholds) []report.Warning {
	var w []report.Warning
	res := r.InstancesResult
	if r.Completed == 0 {
		w = append(w, report.Warn(report.KindNothingServed, "nothing served: none of the %s was served; latency_ms, percentiles_ms and the per-request bill are 0", words.N(r.Offered, "request")))
	} else if r.Completed < 100 {
		w = append(w, report.Warn(report.KindFewRequests, "few requests: %d served; a percentile is a request's own time (nearest rank), so p99 is the max below 100 requests and p90 below 10",
			r.Completed))
	}
	if res.Failed > 0 {
		w = append(w, report.Warn(report.KindFailedRequests, "failed requests: %d of %d were not served (%s); the response times cover served requests only",
			res.Failed, r.Offered, firstFailure))
	}
	if res.FailedStarts > 0 {
		w = append(w, report.Warn(report.KindFailedColdStarts, "failed cold starts: %d of %s never became ready; the requests that waited for them failed (see requests[].error), and were not sent elsewhere",
			res.FailedStarts, words.N(res.InstancesStarted, "instance")))
	}
	if all := float64(res.PeakInstances) * r.Cgroup.EffectiveCPUs; numCPU > 0 && all > float64(numCPU)+1e-9 {
		w = append(w, report.Warn(report.KindInstancesOverMachine, "instances beyond the machine: up to %s at once, each allowed %.2f CPUs (%.2f in all), on %s: "+
			"they compete for the machine's CPUs as well as their quotas, as on an oversubscribed host",
			words.N(res.PeakInstances, "instance"), r.Cgroup.EffectiveCPUs, all, words.N(numCPU, "CPU")))
	}
	if late := time.Duration(r.DispatchLateMs * float64(time.Millisecond)); late > lateWarn {
		w = append(w, report.Warn(report.KindLateDispatcher, "late dispatcher: a request was handled up to %s after its scheduled arrival (the parent, outside the slices, was preempted); "+
			"the response times include the delay, measured from the scheduled arrival", table.MsSpaced(r.DispatchLateMs)))
	}
	if msg, ok := nearFloor(r.LatencyMs, r.FloorMs); ok {
		w = append(w, report.Warning{Kind: report.KindNearFloor, Text: msg})
	}
	if n := len(res.PerInstance); cpuUnknown > 0 && cpuUnknown < n {
		w = append(w, report.Warn(report.KindCPUUnknown, "cpu partly unknown: the CPU time of %d of %d instances could not be read (they ended before it was, and their slices have no usage counter); cpu_ms sums the other %d",
			cpuUnknown, n, n-cpuUnknown))
	}
	// Busy machine: what the machine did beyond the instances' CPU, which
	// must then be known in full.
	if bg.MachineBusy != nil && bg.Window > 0 && r.CPUMs != nil && cpuUnknown == 0 {
		own := time.Duration(*r.CPUMs * float64(time.Millisecond))
		if bg.ProcessCPU != nil {
			own += *bg.ProcessCPU
		}
		others := *bg.MachineBusy - own
		if float64(others-bg.BusyResolution) >= th.BusyCPUs*float64(bg.Window) {
			w = append(w, report.Warn(report.KindBusyMachine, "busy machine: other processes kept %.2f CPUs busy on average during the run, competing with the instances: "+
				"response times may come out high; measure on a quiet machine", float64(others)/float64(bg.Window)))
		}
	}
	return w
}

func msOf(d time.Duration) *float64 {
	v := ms(d)
	return &v
}

// exactPercentiles summarises ds: each percentile is the value of a
// request (nearest rank: the ⌈p·n⌉-th smallest, gonum's stat.Empirical),
// the mean exact.
func exactPercentiles(ds []time.Duration) report.LatencyMs {
	if len(ds) == 0 {
		return report.LatencyMs{None: true}
	}
	ns := make([]float64, len(ds))
	for i, d := range ds {
		ns[i] = float64(d)
	}
	slices.Sort(ns)
	ms := func(ns float64) float64 { return ns / float64(time.Millisecond) }
	rank := func(p float64) float64 { return ms(stat.Quantile(p, stat.Empirical, ns, nil)) }
	return report.LatencyMs{Mean: ms(stat.Mean(ns, nil)), Min: ms(ns[0]),
		P50: rank(0.5), P90: rank(0.9), P99: rank(0.99), P999: rank(0.999), Max: ms(ns[len(ns)-1])}
}

// histogramOf is latency's histogram_hdr of ds.
func histogramOf(ds []time.Duration) string {
	h := hdrhistogram.New(1, int64(time.Hour), 3)
	for _, d := range ds {
		_ = h.RecordValue(min(max(int64(d), 1), int64(time.Hour)))
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(enc)
}
