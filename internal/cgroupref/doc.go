// Package cgroupref resolves a cgroup the user names — its directory, its
// path from the top of the hierarchy, or a pid — to the cgroup where its
// usage is counted and to its cgroup in the cpu hierarchy, where the
// kernel throttles it and the counters and the tracer attach (on cgroup
// v1 these can be two hierarchies, cpuacct and cpu).
//
// It is the one resolver of a named cgroup: latency --target --cgroup
// PATH, sample --cgroup/--pid (Sampled; cgroup.Cgroup.IsHostRoot says
// whether it is the whole machine) and sample --trace all go through it.
// It reads and never writes; the errors are plain, and the caller words
// them for its flag.
package cgroupref
