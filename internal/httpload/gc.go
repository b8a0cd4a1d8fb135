package httpload

import (
	"runtime"
	"runtime/debug"
)

// gcHeadroom is what the heap may grow by while the collector is quiet
// before it runs anyway: a request allocates about 600 bytes here (net/http's
// response parser), so 256 MiB is some 400,000 requests, 40 s at 10,000/s.
const gcHeadroom = 256 << 20

// quietGC collects now and keeps the collector from running again, until
// the returned restore, unless the process grows by more than the larger of
// gcHeadroom and its size now (the memory limit then starts it). A
// collection's mark phase takes one of the two CPUs' Ps for its own worker
// and assists from the allocating goroutines, milliseconds in the middle
// of the response times. The idea and the numbers are the open loop's
// (its quietGC), written again here so that this package imports nothing
// of the engine.
func quietGC() (restore func()) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := debug.SetMemoryLimit(-1) // reads it
	pct := debug.SetGCPercent(-1)
	debug.SetMemoryLimit(min(limit, int64(ms.Sys)+max(gcHeadroom, int64(ms.Sys))))
	return func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	}
}
