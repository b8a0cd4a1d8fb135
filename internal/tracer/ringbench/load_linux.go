//go:build linux

package ringbench

import "github.com/cilium/ebpf"

// Spec is the object's collection spec: bench_emit, its ring buffer
// (events) and its lost counter.
func Spec() (*ebpf.CollectionSpec, error) { return loadRingbench() }
