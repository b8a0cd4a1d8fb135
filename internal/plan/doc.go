// Package plan says what one run is to measure, as plain data: the
// workload (the closed or the open loop), the --gomaxprocs policy, where
// its slice goes (the --cgroup mode, the cgroup version, the parent), the
// limits and cpuset to make it with, whether to trace it, the notes for its
// result, and, for latency --target, the requests and the server's plain
// settings.
//
// A sweep's steps, the Kubernetes Jobs that carry them (internal/kube) and
// the tables that describe them (internal/latency, internal/sweep) are
// made of these values. The runner turns one into what it runs, on this
// machine: it finds the hierarchy and the target's cgroup and adds the host,
// this binary, the stderr and the trace sink (runner.Options).
//
// Invariant: this package, and what imports it for its plans, links no
// machinery: no cgroupfs (containerd/cgroups), no eBPF (cilium/ebpf), no
// D-Bus (godbus). cmd/throttlebench's TestConfigurationPullsNoMachinery
// holds it.
package plan
