// Package locate finds the cgroup that sample reads, on the host: the one
// --cgroup names (a directory or a cgroup path), --pid's, or this
// process's, and says whether it is the host's top cgroup (the whole
// machine). It is the part of sampling that reads cgroupfs and /proc, kept
// apart from internal/usage so that the usage tables, fits and advice link
// no cgroup machinery (containerd/cgroups, cilium/ebpf, godbus).
package locate
