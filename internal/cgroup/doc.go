// Package cgroup finds the cgroup a process runs in, reads its CPU
// bandwidth limits and the kernel's throttling and usage counters (cgroup
// v1 and v2, normalised into one struct and one unit), and makes, fills and
// removes the slices a benchmark runs in.
//
// Everything reads below an injected root (Host.Root): "/" in production, a
// fixture tree under testdata/ in tests. /proc/self/mountinfo is parsed once
// into a mountTable (mounts.go), /proc/PID/cgroup matched once
// (procCgroups), /proc/PID/stat parsed once (procStat).
//
// v1 and v2 are split as runc splits its managers into fs and fs2: what a
// version names and reads is the version interface (v1.go, v2.go), a
// slice's file work the manager interface (slice_v1_linux.go,
// slice_v2_linux.go), each picked once from Hierarchy.Version; no other
// code asks which version it has. Where v1 mounts cpuacct or cpuset apart,
// a slice has twins there, of the same name under the same parent path
// (Hierarchy.TwinParents).
//
// containerd/cgroups makes, limits, fills and removes slices and reads
// their usage counter; burst is written beside it (the library has no
// field for it). Each counter file has one reader: cpu.stat's counters are
// ours (Cgroup.Stat; the library cannot tell a missing counter from 0, and
// its v1 reader skips the burst counters), and the allocation-free
// UsageFile serves only sample's sampler. cmd/throttlebench's
// TestOneReaderPerCounter holds this.
//
// Also here: where slices go (driver*.go: cgroupfs, or a systemd scope of
// ours), a traced cgroup's family by kernfs id (family.go), the mount
// layout and cpuset for inspect (layout.go, cancreate_linux.go), and a
// cgroup the user names for sample (lookup.go).
//
// Slice names carry the owner's PID and start time, so that CleanStale and
// cleanup remove only the empty slices of runs that no longer live.
//
// It may not kill a process outside a slice of its own (KillIn finds each
// there again, through a pidfd, before the signal), make a parent
// the user named (only the default parent and its twins are made), or
// write a cgroup it did not make: on v2 it writes cgroup.subtree_control
// only in its default parent and, under the systemd driver, in its own
// scope, which systemd delegated to it. What it writes itself (a slice's
// directory, burst, cgroup.procs and cgroup.subtree_control under the
// systemd driver) is opened beneath the hierarchy's mount point, as runc
// opens cgroup files (cgroupfs_linux.go). Nothing here prints.
package cgroup
