package report

import (
	"encoding/json"
	"time"
)

// Latency is the result of one open-loop configuration (throttlebench
// latency), the contract documented in docs/latency.md ("The JSON result"). A pointer is null where
// its number is not known.
type Latency struct {
	SchemaVersion int           `json:"schema_version"`
	Config        LatencyConfig `json:"config"`
	Cgroup        Cgroup        `json:"cgroup"`
	Host          Host          `json:"host"`
	// OfferedRPS is the requests whose arrival came per second of
	// --duration; AchievedRPS the completed ones per second of --duration,
	// or of the time from the first arrival to the last completion when
	// that is longer.
	OfferedRPS  float64 `json:"offered_rps"`
	AchievedRPS float64 `json:"achieved_rps"`
	Offered     int     `json:"offered"`
	Completed   int     `json:"completed"`
	Dropped     int     `json:"dropped"`
	// CPUMs is the workload's CPU time over the measured window (WindowMs:
	// from the go-ahead to the result); CPUUtilisation that over the CPU
	// time the limit allowed in it (window × effective_cpus).
	CPUMs          *float64 `json:"cpu_ms"`
	WindowMs       float64  `json:"window_ms"`
	CPUUtilisation *float64 `json:"cpu_utilisation"`
	// PeakCPUs100ms is the most CPU the workload used in any 100 ms of the
	// window, in CPUs, from a sampler outside the slice.
	PeakCPUs100ms *float64 `json:"peak_cpus_100ms"`
	// CPUs100ms is the workload's use in each whole 100 ms of the window,
	// the trace PeakCPUs100ms is the largest of; not written (size
	// computes the usage-based rules from it).
	CPUs100ms []float64 `json:"-"`
	LatencyMs LatencyMs `json:"latency_ms"`
	// LatencyMsCI95 is the 95% confidence intervals of latency_ms's p50,
	// p99 and p999; null where there were no responses (and in results
	// written before it).
	LatencyMsCI95 *LatencyCI95 `json:"latency_ms_ci95"`
	// FloorMs is the harness's own floor: response times of requests that
	// need nothing, sent through the same path before the window (Floor
	// says how); null where none was measured (no floor request of
	// --instances' was served).
	FloorMs    *FloorMs   `json:"floor_ms"`
	Floor      *Floor     `json:"floor"`
	Throttling Throttling `json:"throttling"`
	// Contention is how much the work waited for CPUs others held.
	Contention *Contention `json:"contention"`
	// Usage is run's usage, from the same CPU time as CPUMs: cpu_ms
	// against the quota over the periods counted, and where it was read.
	Usage Usage     `json:"usage"`
	Model LoadModel `json:"model"`
	// DispatchLateMs is the most a request's dispatch came after its
	// scheduled arrival (an idle worker waking late for it; with
	// --instances, the parent's dispatcher); response times include it.
	// Older results call it generator_late_ms, which UnmarshalJSON still
	// reads.
	DispatchLateMs float64     `json:"dispatch_late_ms"`
	WorkerCPUMs    []float64   `json:"worker_cpu_ms"`
	Calibration    Calibration `json:"calibration"`
	// Histogram holds every response time in ns (HdrHistogram V2,
	// compressed, base64), to merge or re-plot.
	Histogram string `json:"histogram_hdr"`
	// ThrottleEvents (--trace) is what the kernel's throttle events said of
	// the window; absent without --trace or where tracing failed.
	ThrottleEvents *ThrottleEvents `json:"throttle_events,omitempty"`
	Warnings       []Warning       `json:"warnings"`
	// The instances' own keys (latency --instances); absent without them.
	*InstancesResult
	// The target's counts (latency --target); absent without it.
	*TargetResult
	// The requests the throttles hit (--trace): throttled_requests,
	// request_throttled_ms, latency_ms_unthrottled, p99_request.
	*RequestThrottles
}

// UnmarshalJSON reads a latency result, also one written before the
// rename of generator_late_ms (there has been no generator thread since
// the workers claim their arrivals themselves) to dispatch_late_ms: the
// old key fills DispatchLateMs where the new one is absent.
func (l *Latency) UnmarshalJSON(data []byte) error {
	type plain Latency // no methods: no recursion
	// Both keys at the top, where they hide plain's own dispatch_late_ms.
	aux := struct {
		*plain
		Old *float64 `json:"generator_late_ms"`
		New *float64 `json:"dispatch_late_ms"`
	}{plain: (*plain)(l)}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	switch {
	case aux.New != nil:
		l.DispatchLateMs = *aux.New
	case aux.Old != nil:
		l.DispatchLateMs = *aux.Old
	}
	return nil
}

// LatencyConfig is what was asked.
type LatencyConfig struct {
	Rate             float64 `json:"rate"`
	Arrivals         string  `json:"arrivals"`
	Count            int     `json:"count,omitempty"` // --arrivals once: requests at once
	OnMs             float64 `json:"on_ms"`
	OffMs            float64 `json:"off_ms"`
	WorkMs           float64 `json:"work_ms"`
	WaitMs           float64 `json:"wait_ms"`
	Workers          int     `json:"workers"`
	Queue            int     `json:"queue"`
	DurationS        float64 `json:"duration_s"`
	Seed             uint64  `json:"seed"`
	GOMAXPROCS       int     `json:"gomaxprocs"` // in force during the run
	GOMAXPROCSPolicy string  `json:"gomaxprocs_policy"`
	Cpuset           string  `json:"cpuset"` // --cpuset as asked; "" for none
	// The instances' (latency --instances); absent without them.
	*InstancesConfig
	// The target's (latency --target); absent without it.
	*TargetConfig
}

// LatencyMs are response times (completion − scheduled arrival). Mean, min
// and max are exact, the percentiles within 0.1%.
type LatencyMs struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	// None says there were no response times to summarise (no request
	// completed): every figure is unknown, written null, never 0, and a
	// null p50 reads back as None.
	None bool `json:"-"`
}

// noLatency is LatencyMs's JSON when None.
const noLatency = `{"mean":null,"min":null,"p50":null,"p90":null,"p99":null,"p999":null,"max":null}`

// MarshalJSON writes the figures, or nulls for None.
func (l LatencyMs) MarshalJSON() ([]byte, error) {
	if l.None {
		return []byte(noLatency), nil
	}
	type plain LatencyMs // no methods: no recursion
	return json.Marshal(plain(l))
}

// UnmarshalJSON reads the figures; a null p50 is None.
func (l *LatencyMs) UnmarshalJSON(data []byte) error {
	type plain LatencyMs
	aux := struct {
		*plain
		P50 *float64 `json:"p50"` // hides plain's
	}{plain: (*plain)(l)}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	l.None = aux.P50 == nil
	if aux.P50 != nil {
		l.P50 = *aux.P50
	}
	return nil
}

// LatencyCI95 holds the 95% confidence intervals of the percentiles, each
// [low, high] in ms, distribution-free: the order statistics whose ranks
// hold the percentile between them with 95% probability for independent
// samples (stats.QuantileCI). Requests of one run under a quota are not
// independent (docs/latency.md): the interval is the least the figure is
// uncertain by. Null where the responses are too few for one (p99 needs
// 368, p99.9 3688).
type LatencyCI95 struct {
	P50  *[2]float64 `json:"p50"`
	P99  *[2]float64 `json:"p99"`
	P999 *[2]float64 `json:"p999"`
}

// FloorMs is the floor's percentiles, in ms.
type FloorMs struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

// Floor is how floor_ms was measured: wakeups requests that need no work,
// arriving as the run's do (arrivals: poisson when the run's are, else
// fixed) interval_ms apart on average, through the open loop's own path
// (an idle worker's absolute timer, the completion stamp), before the CPU
// loop's calibration; took_ms is its wall time.
type Floor struct {
	Wakeups    int     `json:"wakeups"`
	Arrivals   string  `json:"arrivals"`
	IntervalMs float64 `json:"interval_ms"`
	MaxMs      float64 `json:"max_ms"`
	TookMs     float64 `json:"took_ms"`
}

// LoadModel is the CFS model's view of an open loop: the CPU the requests
// ask for against what the limit allows. Above 1 the queue grows for the
// whole run; below it, the tail comes from the arrivals' bursts meeting the
// quota at the 100 ms scale.
type LoadModel struct {
	OfferedCPUs float64 `json:"offered_cpus"` // rate × work
	OfferedLoad float64 `json:"offered_load"` // offered_cpus / effective_cpus
}

// Calibration says what the open loop's CPU work is and how much of it
// makes a millisecond on the machine that ran it (bench.Calibration's
// figures, which the builder copies: the schema names no other package).
type Calibration struct {
	Loop            string        `json:"loop"`              // what one iteration computes
	IterationsPerMs float64       `json:"iterations_per_ms"` // iterations per ms of Clock
	Clock           string        `json:"clock"`             // what the rounds were timed with
	Rounds          int           `json:"rounds"`            // timed rounds; IterationsPerMs is their median
	RoundIterations uint64        `json:"round_iterations"`  // iterations per round
	Took            time.Duration `json:"took_ns"`           // wall time the calibration took
}
