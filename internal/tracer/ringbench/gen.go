// Package ringbench is a BPF object for internal/tracer's benchmarks alone
// (BenchmarkRingBuffer): only test files import it, so no binary of the
// program carries it. `make generate` rebuilds it with the tracer's.
package ringbench

//go:generate go tool bpf2go -tags linux ringbench ringbench.bpf.c -- -O2 -g -Wall -Werror
//go:generate sh -c "sha256sum ringbench.bpf.c > ringbench.bpf.c.sha256"
