package build

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

const msD = time.Millisecond

func instancesInput() InstancesInput {
	p, th := uint64(30), uint64(4)
	in := InstancesInput{
		Open: runspec.OpenLoop{Arrivals: runspec.ArrivalsOnce, Count: 4, Work: 100 * msD, Wait: 2 * time.Second,
			Instances: &runspec.Instances{Policy: "per-request", Concurrency: 1, Init: 70 * msD, InitMemory: 80 << 20,
				KeepAlive: 10 * time.Minute, BillGranularity: msD}},
		Policy: "workers", Cgroup: bandwidth.Group{Version: 2, Path: "/tb-a", Dir: "/sys/fs/cgroup/tb-a"},
		Limits: bandwidth.Limits{Period: 100 * msD, Quota: 50 * msD},
		Chain:  []bandwidth.Level{{Dir: "/sys/fs/cgroup/tb-a", Limits: bandwidth.Limits{Period: 100 * msD, Quota: 50 * msD}}},
		NumCPU: 2, GOMAXPROCS: 1, Started: 3, Peak: 3, PeakRSS: 200 << 20,
		Stat:   bandwidth.CPUStat{NrPeriods: &p, NrThrottled: &th},
		Window: 2500 * msD, Late: msD,
		Requests: []InstanceRequest{
			{Arrival: 0, Instance: 0, Cold: true, WaitInstance: 150 * msD, Queue: msD, Service: 2100*msD + 1, Response: 2252 * msD, CPU: 100 * msD},
			{Arrival: 0, Instance: 1, Cold: true, WaitInstance: 160 * msD, Queue: 2 * msD, Service: 2200 * msD, Response: 2363 * msD, CPU: 100 * msD},
			{Arrival: 0, Instance: 0, Cold: false, WaitInstance: 2300 * msD, Queue: msD, Service: 2100 * msD, Response: 4402 * msD, CPU: 100 * msD},
			{Arrival: 0, Instance: 2, Failed: "cold start failed: instance 2: killed"},
		},
		Instances: []InstanceRecord{
			{Started: 0, ColdStart: 150 * msD, InitCPU: 80 * msD, Lifetime: 4500 * msD, Served: 2, CPU: 300 * msD, PeakRSS: 100 << 20},
			{Started: 0, ColdStart: 160 * msD, InitCPU: 85 * msD, Lifetime: 2400 * msD, Served: 1, CPU: 200 * msD, PeakRSS: 90 << 20},
			{Started: 0, ColdStart: -1, InitCPU: -1, Lifetime: 40 * msD, CPU: -1, Failed: "killed"},
		},
	}
	return in
}

// Every number of a report on instances, against what the input says.
func TestBuildInstances(t *testing.T) {
	r := BuildInstances(instancesInput())
	res := r.InstancesResult
	require.NotNil(t, res)
	assert.Equal(t, &report.InstancesConfig{Instances: "per-request", Concurrency: 1, InitMs: 70, InitMemoryBytes: 80 << 20, KeepAliveMs: 600_000, BillGranularityMs: 1},
		r.Config.InstancesConfig)
	assert.Equal(t, 4, r.Config.Count)
	assert.Equal(t, 4, r.Offered)
	assert.Equal(t, 3, r.Completed)
	assert.Equal(t, 1, res.Failed)
	assert.Equal(t, 3, res.InstancesStarted)
	assert.Equal(t, 2, res.ColdStarts, "the instances that became ready")
	assert.Equal(t, 1, res.FailedStarts)
	assert.Equal(t, 3, res.PeakInstances)
	assert.Equal(t, int64(200<<20), res.PeakRSSBytes)
	require.NotNil(t, r.CPUMs, "one instance's CPU time is unknown: the others are summed, and a warning says so")
	assert.Equal(t, 500.0, *r.CPUMs)
	assert.Equal(t, 0.5, r.Cgroup.EffectiveCPUs)

	// Nearest rank over three: p50 the 2nd, p90 and up the 3rd.
	assert.Equal(t, report.LatencyMs{Mean: (2252 + 2363 + 4402) / 3.0, Min: 2252, P50: 2363, P90: 4402, P99: 4402, P999: 4402, Max: 4402}, r.LatencyMs)
	assert.Equal(t, r.LatencyMs, res.PercentilesMs.Response)
	assert.Equal(t, 160.0, res.PercentilesMs.WaitInstance.P50)
	assert.Equal(t, 155.0, res.ColdStartMs.Mean)

	// Bills by hand: services 2100.000001 → 2101, 2200, 2100 ms = 6401 ms;
	// GB-s 2.101 × 100/1024 + 2.2 × 90/1024 + 2.1 × 100/1024
	// = (210.1 + 198 + 210) / 1024 = 0.603613281…; lifetimes 6940 ms × 0.5 CPUs.
	assert.InDelta(t, 6401, res.Bill.RequestMs, 1e-9)
	assert.InDelta(t, 618.1/1024, res.Bill.RequestGBs, 1e-12)
	assert.InDelta(t, 6940, res.Bill.InstanceMs, 1e-9)
	assert.InDelta(t, 3.47, res.Bill.InstanceCPUs, 1e-12)

	require.Len(t, res.Requests, 4)
	assert.Equal(t, "cold start failed: instance 2: killed", res.Requests[3].Error)
	assert.Nil(t, res.Requests[3].ResponseMs)
	assert.InDelta(t, 2100.000001, *res.Requests[0].ServiceMs, 1e-9)
	require.Len(t, res.PerInstance, 3)
	assert.Nil(t, res.PerInstance[2].ColdStartMs)
	assert.Equal(t, "killed", res.PerInstance[2].Failed)
	require.NotNil(t, r.Throttling.NrThrottled)
	assert.Equal(t, uint64(4), *r.Throttling.NrThrottled)

	assert.Equal(t, []string{
		"few requests: 3 served; a percentile is a request's own time (nearest rank), so p99 is the max below 100 requests and p90 below 10",
		"failed requests: 1 of 4 were not served (cold start failed: instance 2: killed); the response times cover served requests only",
		"failed cold starts: 1 of 3 instances never became ready; the requests that waited for them failed (see requests[].error), and were not sent elsewhere",
		"cpu partly unknown: the CPU time of 1 of 3 instances could not be read (they ended before it was, and their slices have no usage counter); cpu_ms sums the other 2",
	}, report.Texts(r.Warnings), "3 × 0.5 CPUs fit the machine's 2")
	assert.Equal(t, []string{"few requests", "failed requests", "failed cold starts", "cpu partly unknown"}, headlines(r.Warnings), "each of its kind")

	// None known: null, and no warning of a part.
	in := instancesInput()
	for i := range in.Instances {
		in.Instances[i].CPU = -1
	}
	r = BuildInstances(in)
	assert.Nil(t, r.CPUMs)
	assert.NotContains(t, headlines(r.Warnings), "cpu partly unknown")
}

func TestBuildInstancesWarnsOfOversubscription(t *testing.T) {
	in := instancesInput()
	in.Limits = bandwidth.Limits{Period: 100 * msD, Quota: bandwidth.Unlimited}
	in.Chain = nil
	in.Late = 20 * msD
	for i := range in.Instances {
		in.Instances[i].CPU = 100 * msD
	}
	busy := 3 * time.Second
	in.Background = Background{Window: 2500 * msD, MachineBusy: &busy, BusyResolution: 20 * msD}
	r := BuildInstances(in)
	require.NotNil(t, r.CPUMs)
	assert.Equal(t, 300.0, *r.CPUMs)
	h := headlines(r.Warnings)
	assert.Contains(t, h, "instances beyond the machine")
	assert.Contains(t, h, "late dispatcher")
	assert.Contains(t, h, "busy machine", "3 s busy, 0.3 s of it the instances': 1.08 CPUs of others")
	assert.InDelta(t, 6940.0/1000*2, r.InstancesResult.Bill.InstanceCPUs, 1e-9, "unlimited: the machine's CPUs")
	assert.Equal(t, 2.0, r.InstancesResult.Bill.CPUShare)
}

// The instance bill is for the share asked (quota/period), as a VM or a
// container of that size is billed, even where the machine has fewer
// CPUs or a parent caps it lower: --cpus 4 on 2 CPUs bills 4.
func TestBuildInstancesBillsTheShareAsked(t *testing.T) {
	in := instancesInput()
	in.Limits = bandwidth.Limits{Period: 100 * msD, Quota: 400 * msD}
	in.Chain = []bandwidth.Level{{Dir: "/sys/fs/cgroup/tb-a", Limits: in.Limits},
		{Dir: "/sys/fs/cgroup", Limits: bandwidth.Limits{Period: 100 * msD, Quota: 150 * msD}}}
	r := BuildInstances(in)
	assert.Equal(t, 1.5, r.Cgroup.EffectiveCPUs, "what it may use")
	assert.Equal(t, 4.0, r.InstancesResult.Bill.CPUShare, "what it is billed for")
	assert.InDelta(t, 6940.0/1000*4, r.InstancesResult.Bill.InstanceCPUs, 1e-9)
}

// cold_starts counts instances whose cold start completed, not requests:
// three requests that waited together for one shared instance are three
// cold requests and one cold start.
func TestBuildInstancesColdStartsAreInstances(t *testing.T) {
	in := instancesInput()
	in.Open.Instances.Policy, in.Open.Instances.Concurrency = "shared", 3
	in.Started, in.Peak = 1, 1
	in.Requests = []InstanceRequest{
		{Instance: 0, Cold: true, WaitInstance: 150 * msD, Service: 10 * msD, Response: 161 * msD},
		{Instance: 0, Cold: true, WaitInstance: 150 * msD, Service: 10 * msD, Response: 161 * msD},
		{Instance: 0, Cold: true, WaitInstance: 150 * msD, Service: 10 * msD, Response: 161 * msD},
	}
	in.Instances = in.Instances[:1]
	res := BuildInstances(in).InstancesResult
	assert.Equal(t, 1, res.InstancesStarted)
	assert.Equal(t, 1, res.ColdStarts)
	for i, q := range res.Requests {
		assert.True(t, q.Cold, "request %d", i)
	}
}

// Nearest rank: the ⌈p·n⌉-th smallest, a value some request had.
func TestExactPercentilesNearestRank(t *testing.T) {
	var ds []time.Duration
	for _, v := range []int{7, 3, 10, 1, 5, 9, 2, 8, 4, 6} {
		ds = append(ds, time.Duration(v)*time.Millisecond)
	}
	assert.Equal(t, report.LatencyMs{Mean: 5.5, Min: 1, P50: 5, P90: 9, P99: 10, P999: 10, Max: 10}, exactPercentiles(ds))
	// n = 3: p50 is the 2nd (⌈1.5⌉), p90 the 3rd (⌈2.7⌉).
	three := []time.Duration{3 * time.Millisecond, time.Millisecond, 2 * time.Millisecond}
	assert.Equal(t, report.LatencyMs{Mean: 2, Min: 1, P50: 2, P90: 3, P99: 3, P999: 3, Max: 3}, exactPercentiles(three))
	assert.Equal(t, report.LatencyMs{None: true}, exactPercentiles(nil), "nothing to summarise: null, not 0")
}
