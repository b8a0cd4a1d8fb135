package fleet

import (
	"errors"
	"runtime"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// The fleet's records turned into latency's report.

// build turns the records into the report.
func (r *fleetRun) build(end int64, bg build.Background) (*report.Latency, error) {
	if r.first == nil {
		return nil, errors.New("no instance was started")
	}
	if r.first.err != nil {
		return nil, r.first.err
	}
	// GOMAXPROCS as the first instance that became ready reported it (the
	// value in force, 0 asking for the runtime's default); as asked when
	// none did.
	gmp := r.init.GOMAXPROCS
	for _, li := range r.insts {
		if li.ready != nil && li.ready.GOMAXPROCS > 0 {
			gmp = li.ready.GOMAXPROCS
			break
		}
	}
	in := build.InstancesInput{Open: r.o.Open, Policy: r.o.Policy, Cgroup: runner.ReportGroup(r.first.cg), Limits: r.first.limits, Chain: r.first.chain,
		NumCPU: runtime.NumCPU(), Host: r.k.HostInfo(r.o.Host.Root, r.started), GOMAXPROCS: gmp, Calibration: r.cal,
		Started: len(r.m.Instances()), Peak: r.m.Peak(), PeakRSS: r.peakRSS,
		Window: time.Duration(end - r.t0), Late: r.late, Background: bg, Floor: r.floor}
	for _, q := range r.reqs {
		row := build.InstanceRequest{Arrival: time.Duration(q.arrival - r.t0), Instance: q.instance, Cold: q.cold, Failed: q.failed}
		switch {
		case q.failed != "":
		case q.reply == nil:
			row.Failed = "no reply" // cannot be: the machine drained idle
		default:
			row.WaitInstance = time.Duration(q.sent - q.arrival)
			row.Queue = time.Duration(q.reply.Start - q.sent)
			row.Service = time.Duration(q.reply.End - q.reply.Start)
			row.Response = time.Duration(q.received - q.arrival)
			row.CPU = q.reply.CPU
		}
		in.Requests = append(in.Requests, row)
	}
	var stat cgroup.CPUStat
	haveStat := false
	for i, x := range r.m.Instances() {
		li := r.insts[i]
		rec := build.InstanceRecord{Started: time.Duration(x.Started) - time.Duration(r.t0), ColdStart: -1, InitCPU: -1, CPU: -1,
			Lifetime: x.Lifetime(), Served: x.Served, Failed: x.Failed}
		if li.ready != nil {
			rec.ColdStart = time.Duration(li.readyAt - li.asked)
			rec.InitCPU = li.ready.CPU
		}
		li.mu.Lock()
		if li.cpuOK {
			rec.CPU = li.cpu
		}
		rec.PeakRSS = li.mem.Peak
		if li.statErr == nil {
			if haveStat {
				stat = stat.Add(li.stat)
			} else {
				stat, haveStat = li.stat, true
			}
		}
		li.mu.Unlock()
		in.Instances = append(in.Instances, rec)
	}
	in.Stat = stat
	// A run where nothing was served (a shared instance whose cold start
	// failed) is still a result: completed 0, and the warnings say why.
	res := build.BuildInstances(in)
	if r.tw != nil {
		// Each request over its instance's threads, as one: from its
		// arrival (its instance's cold start, or its wait behind the
		// requests before it, included) to its reply.
		var spans []throttle.Span
		for _, q := range r.reqs {
			if q.failed == "" && q.reply != nil {
				spans = append(spans, throttle.Span{Start: q.arrival, End: q.received, CPU: -1, Group: r.insts[q.instance].group})
			}
		}
		r.tw.Latency(res, spans, throttle.ThreadsInstance)
	}
	r.warnMu.Lock()
	for _, w := range r.warns {
		res.AddWarning(w)
	}
	r.warnMu.Unlock()
	return res, nil
}
