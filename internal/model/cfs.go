// Package model holds what the kernel's CPU bandwidth control predicts for
// a workload: the CFS model of quota and period here, and beside it
// (burst.go) the burst simulator of simulate. Generic statistics live in
// internal/stats; this package knows about cgroups, workers and GOMAXPROCS.
//
// The CFS bandwidth model.
//
// A cgroup with cpu.max "q p" (quota q microseconds per period p) may run
// for at most q microseconds of CPU time, summed over all its threads, in
// every period of p microseconds; once the quota is spent the whole group is
// throttled until the next period starts. Over many periods a CPU-bound
// group therefore receives at most q/p CPU-seconds per wall-clock second,
// however many threads it has. It can also never use more CPUs at once than
// it has runnable threads, than GOMAXPROCS lets the Go scheduler run, or
// than its cpuset holds. So CPU work W (CPU-seconds summed over all
// threads) takes about
//
//	W / min(workers, GOMAXPROCS, q/p, |cpuset|)
//
// wall-clock seconds. This is a long-run mean: an iteration much shorter
// than the period either fits inside the quota (and runs at full speed) or
// straddles a throttled stretch (and waits until the next period), so
// individual iterations are bimodal even when their mean matches the model.
package model

import "math"

// Parallelism is how many CPUs a CPU-bound run of workers threads can use at
// once, averaged over time: min(workers, gomaxprocs, cpus), where cpus is the
// effective CPU limit (quota/period, or the cpuset size, whichever is
// smaller). cpus that is +Inf, NaN or <= 0 means no limit, as does
// gomaxprocs <= 0. The result may be fractional (cpus 0.1 gives 0.1).
// workers <= 0 gives 0: there is nothing to run.
func Parallelism(workers, gomaxprocs int, cpus float64) float64 {
	if workers <= 0 {
		return 0
	}
	par := float64(workers)
	if gomaxprocs > 0 {
		par = math.Min(par, float64(gomaxprocs))
	}
	if cpus > 0 && !math.IsInf(cpus, 1) { // also false for NaN
		par = math.Min(par, cpus)
	}
	return par
}

// ExpectedDuration returns the mean iteration duration the CFS model
// predicts from the CPU time one iteration consumes (summed over all
// workers) divided by Parallelism. Same unit in and out: CPU-nanoseconds per
// iteration give wall-clock nanoseconds per iteration.
//
// A parallelism of 0 or less (no CPU at all) gives +Inf, since the work can
// never finish; zero work takes zero time regardless.
func ExpectedDuration(cpuPerIteration float64, parallelism float64) float64 {
	if cpuPerIteration == 0 {
		return 0
	}
	if parallelism <= 0 {
		return math.Inf(1)
	}
	return cpuPerIteration / parallelism
}

// Pinned is how many CPUs workers pinned round robin to cpus CPUs keep busy
// on average (worker i on CPU i mod cpus): the busiest CPU runs
// ⌈workers/cpus⌉ of them one after another, and sets the pace. 3 workers on
// 2 CPUs use 1.5; 4 on 2 use 2. 0 when either is 0 or less.
func Pinned(workers, cpus int) float64 {
	if workers <= 0 || cpus <= 0 {
		return 0
	}
	busiest := (workers + cpus - 1) / cpus
	return float64(workers) / float64(busiest)
}
