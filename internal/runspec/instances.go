package runspec

import "time"

// Instances is how a run's requests are served by instances: the
// dispatcher's policy and what an instance is.
type Instances struct {
	Policy      string        `json:"policy"`      // per-request, shared or pool:N
	Concurrency int           `json:"concurrency"` // requests an instance serves at once (per-request: 1)
	Init        time.Duration `json:"init_ns"`     // the cold start's CPU work
	InitMemory  int64         `json:"init_memory_bytes"`
	KeepAlive   time.Duration `json:"keep_alive_ns"` // an idle instance retires after this
	// BillGranularity is what a request's duration is rounded up to in
	// the per-request bill.
	BillGranularity time.Duration `json:"bill_granularity_ns"`
}

// MaxInitMemory bounds --init-memory: 1 GiB an instance.
const MaxInitMemory = 1 << 30
