//go:build unix

package workload

import "golang.org/x/sys/unix"

// mapAnon maps n bytes of private anonymous memory, not yet touched.
func mapAnon(n int) ([]byte, error) {
	return unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
}

func unmap(b []byte) error { return unix.Munmap(b) }
