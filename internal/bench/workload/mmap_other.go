//go:build !unix

package workload

// mapAnon falls back to the Go heap where there is no mmap: the pages are
// fresh to the process only the first time the heap grows.
func mapAnon(n int) ([]byte, error) { return make([]byte, n), nil }

func unmap([]byte) error { return nil }
