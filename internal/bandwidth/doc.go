// Package bandwidth holds the CFS bandwidth settings of one cgroup as plain
// values: what a configuration asks for and what a result reports. It lives
// apart from internal/cgroup so that the configuration, compare and collect
// can name limits without importing the machinery that creates slices
// (containerd/cgroups and, through it, cilium/ebpf).
//
// It imports nothing that touches the system (only math and time), and
// internal/cgroup names these types as aliases. cmd/throttlebench's
// TestConfigurationPullsNoMachinery fails if config, compare or bandwidth
// link internal/cgroup, containerd/cgroups or cilium/ebpf.
package bandwidth
