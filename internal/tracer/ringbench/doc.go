// Package ringbench is a BPF object for internal/tracer's benchmarks alone
// (BenchmarkRingBuffer): only test files import it, so no binary of the
// program carries it. `make generate` rebuilds it with the tracer's.
package ringbench
