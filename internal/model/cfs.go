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
