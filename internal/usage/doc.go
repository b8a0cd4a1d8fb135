// Package usage is a cgroup's CPU usage over time, at the scale the CFS
// bandwidth controller works (its period, 100 ms by default): the sampler
// that reads a usage counter at fixed instants, the per-interval usage in
// CPUs, its summaries at the sampling interval and at 1 s, and the sizing
// advice drawn from the trace (the share of intervals above a limit, the
// smallest limit for a target share, the burst that absorbs the spikes).
//
// Its JSON form (File) is the output of `throttlebench sample` and the input
// of the burst simulator.
//
// The sampler reads at absolute instants behind a counter and a clock
// interface; sample's clock is PollClock (clock_linux.go: a timerfd per
// instant, waited for in the runtime's poller). fit.go is the kernel's cap
// on burst and what makes room for it, spell.go the advice as Kubernetes
// and Docker spell it, whole.go the warning for the host's top cgroup,
// options.go sample's flags (Flags.Resolve, Options.Find). It may not create
// or change a cgroup.
package usage
