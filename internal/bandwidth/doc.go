// Package bandwidth holds the CFS bandwidth settings of one cgroup as plain
// values: what a configuration asks for and what a result reports (the
// limits, a chain's levels, the cpu.stat counters, the group's name). It
// lives apart from internal/cgroup so that the configuration, compare,
// collect, the plan and the report's builder can name them without
// importing the machinery that creates slices (containerd/cgroups and,
// through it, cilium/ebpf).
//
// It imports nothing that touches the system (only math and time) and reads
// nothing; internal/cgroup names these types as aliases. cmd/throttlebench's
// TestConfigurationPullsNoMachinery fails if a package that plans or renders
// links internal/cgroup, containerd/cgroups, cilium/ebpf or godbus.
package bandwidth
