package quietgc

import (
	"runtime"
	"runtime/debug"
)

// Headroom is what the heap may grow by while the collector is quiet before
// it runs anyway: a backstop for what else allocates in the process during
// a run (in current mode, the parent's sampler and tracer; the HTTP
// client's about 600 bytes a request, some 400,000 requests, 40 s at
// 10,000/s).
const Headroom = 256 << 20

// Start collects now and keeps the collector from running again, until the
// returned restore, unless the process grows by more than the larger of
// Headroom and its size now (the memory limit then starts it).
func Start() (restore func()) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := debug.SetMemoryLimit(-1) // reads it
	pct := debug.SetGCPercent(-1)
	debug.SetMemoryLimit(min(limit, int64(ms.Sys)+max(Headroom, int64(ms.Sys))))
	return func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	}
}
