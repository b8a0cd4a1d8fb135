//go:build linux

package driver

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// getCPU is the CPU the calling thread runs on now, by getcpu(2) (x/sys
// has no wrapper; Go does not use the vDSO's): -1 when it fails. One raw
// system call, which never blocks.
func getCPU() int {
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		return -1
	}
	return int(cpu)
}

// threadMigrations is the kernel's count of the calling thread's
// migrations so far (se.nr_migrations in /proc/thread-self/sched, which
// kernels built with CONFIG_SCHED_DEBUG have); ok false when it cannot
// be read. The caller must be locked to its OS thread.
func threadMigrations() (n uint64, ok bool) {
	data, err := os.ReadFile("/proc/thread-self/sched")
	if err != nil {
		return 0, false
	}
	n, err = parseNrMigrations(data)
	return n, err == nil
}
