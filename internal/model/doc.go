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
//
// It may not touch a cgroup or the system. burst.go is the simulator's
// inner loop, burstrun.go runs replicas in parallel with per-cell seeds,
// burstout.go writes the cells; a new demand distribution is a word in
// Dists.
package model
