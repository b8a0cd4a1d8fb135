// Package build turns what a run measured (the driver's samples, the
// cgroup's counters, what else was read around them) into its result in
// report's schema: the statistics, the CFS model, and the warnings' rules
// and their thresholds. Kept apart from the schema so that what reads
// results back does not link the cgroup, driver and model packages.
//
// Build, BuildLatency and BuildInstances make the result; Check,
// CheckLatency and CheckInstances are the warnings' rules, their thresholds
// DefaultThresholds; target.go is latency --target's pass or fail rule
// (JudgeTarget, TargetFailure). It may not render anything: warnings are
// data, shown by the renderers.
package build
