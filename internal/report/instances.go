package report

// InstancesConfig is what was asked of the instances (latency
// --instances), inside a latency report's config; absent without them.
type InstancesConfig struct {
	Instances         string  `json:"instances"` // per-request, shared or pool:N
	Concurrency       int     `json:"concurrency"`
	InitMs            float64 `json:"init_ms"`
	InitMemoryBytes   int64   `json:"init_memory_bytes"`
	KeepAliveMs       float64 `json:"keep_alive_ms"`
	BillGranularityMs float64 `json:"bill_granularity_ms"`
}

// InstancesResult is what a run on instances measured, beside latency's
// keys (latency_ms holds the response times, cpu_ms the CPU of every
// instance, throttling the counters of every instance's slice summed).
type InstancesResult struct {
	// InstancesStarted counts the instances asked to start (a slice and a
	// process each); ColdStarts the cold starts that completed (the
	// instances that became ready); FailedStarts the cold starts that
	// failed. The rest of InstancesStarted were still starting when the
	// run ended.
	InstancesStarted int `json:"instances_started"`
	ColdStarts       int `json:"cold_starts"`
	FailedStarts     int `json:"failed_starts"`
	// Failed counts the requests no instance served; offered = completed
	// + failed.
	Failed int `json:"failed"`
	// PeakInstances is the most instances alive (starting or started) at
	// once; PeakRSSBytes the most memory they held together (their
	// resident sets summed, sampled every 100 ms, and at least the largest
	// one's own peak).
	PeakInstances int   `json:"peak_instances"`
	PeakRSSBytes  int64 `json:"peak_rss_bytes"`
	// ColdStartMs is how long an instance took from being asked for to
	// being ready (its slice, its process, its --init and --init-memory),
	// over the instances that got there.
	ColdStartMs LatencyMs `json:"cold_start_ms"`
	Bill        Bill      `json:"bill"`
	// PercentilesMs summarise the parts of every served request's response
	// time: wait_instance, queue, service, response (= latency_ms).
	PercentilesMs PartsMs       `json:"percentiles_ms"`
	PerInstance   []InstanceRow `json:"per_instance"`
	// Requests are every request in arrival order; absent with --summary.
	Requests []RequestRow `json:"requests,omitempty"`
}

// PartsMs are the parts of the served requests' response times.
type PartsMs struct {
	WaitInstance LatencyMs `json:"wait_instance"`
	Queue        LatencyMs `json:"queue"`
	Service      LatencyMs `json:"service"`
	Response     LatencyMs `json:"response"`
}

// InstanceRow is one instance's life.
type InstanceRow struct {
	ID int `json:"id"`
	// StartedMs is when it was asked for, from the first arrival.
	StartedMs   float64  `json:"started_ms"`
	ColdStartMs *float64 `json:"cold_start_ms"` // null: it never became ready
	InitCPUMs   *float64 `json:"init_cpu_ms"`   // the process's CPU time when ready
	LifetimeMs  float64  `json:"lifetime_ms"`   // billed: asked for → retired (or the run's end)
	Served      int      `json:"served"`
	CPUMs       *float64 `json:"cpu_ms"`
	PeakRSS     int64    `json:"peak_rss_bytes"` // VmHWM; 0 when never read
	Failed      string   `json:"failed,omitempty"`
}

// RequestRow is one request. The four parts are null for a request that
// failed (Error says why).
type RequestRow struct {
	ID        int     `json:"id"`
	ArrivalMs float64 `json:"arrival_ms"` // scheduled, from the first arrival
	// Instance served it (-1: none did); Cold says it waited for that
	// instance's cold start (it started the instance, or joined it while
	// it started), as every request sent to a starting instance does.
	Instance int  `json:"instance"`
	Cold     bool `json:"cold"`
	// WaitInstanceMs runs from the scheduled arrival until the dispatcher
	// handed it to an instance (a cold start, a busy pool); QueueMs from
	// there until the instance began it; ServiceMs is its work and wait;
	// ResponseMs from the scheduled arrival to the reply: the three and
	// the reply's way back.
	WaitInstanceMs *float64 `json:"wait_instance_ms"`
	QueueMs        *float64 `json:"queue_ms"`
	ServiceMs      *float64 `json:"service_ms"`
	ResponseMs     *float64 `json:"response_ms"`
	CPUMs          *float64 `json:"cpu_ms"`
	Error          string   `json:"error,omitempty"`
}

// Bill is what the same run would cost under the two ways of billing
// (instances.Compute fills it).
type Bill struct {
	// RequestMs is Σ request durations, each rounded up to the
	// granularity (at least one granule a request); RequestGBs the same
	// durations in seconds × each one's instance memory in GB: function
	// platforms' per-request billing.
	RequestMs  float64 `json:"request_ms"`
	RequestGBs float64 `json:"request_gb_s"`
	// InstanceMs is Σ instance lifetimes; InstanceCPUs those in seconds ×
	// the CPU share each instance is allowed: billing by the instance, as
	// a VM or a container is billed, idle or not.
	InstanceMs   float64 `json:"instance_ms"`
	InstanceCPUs float64 `json:"instance_cpu_s"`
	// CPUShare is the share each instance is billed for: its quota/period,
	// or the machine's CPUs when it has no quota.
	CPUShare float64 `json:"cpu_share"`
}
