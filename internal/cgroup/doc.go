// Package cgroup finds the cgroup a process runs in, reads its CPU bandwidth
// limits and the kernel's throttling counters (cgroup v1 and v2, normalised
// into one struct and one unit), and creates, fills and removes the slices a
// benchmark runs in.
//
// Every reader works below an injected root directory, so tests point it at
// fixture trees under testdata/ and production code at "/".
package cgroup
