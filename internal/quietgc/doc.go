// Package quietgc keeps Go's collector out of a measured window: the open
// loop's (internal/bench) and the HTTP client's (internal/httpload), whose
// request paths allocate nothing or little, so that no collection takes CPU
// from them (a quarter of GOMAXPROCS while it marks, one of our two CPUs'
// Ps) or stops them briefly in the middle of the measured latencies.
//
// Start collects once, then turns GOGC off with a memory limit above the
// heap as the backstop, until the returned restore. It may not measure
// anything itself.
package quietgc
