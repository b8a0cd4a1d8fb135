//go:build linux

package bench

import (
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

// gettid is the calling thread's id: a lone worker (see lone) checks with
// it that it is still on the thread it read its counters on.
func gettid() int { return unix.Gettid() }

// threadSched is /proc/thread-self/sched, NUL-terminated for openat.
var threadSched = append([]byte("/proc/thread-self/sched"), 0)

// schedFile reads the calling thread's sched file into a buffer of its
// own (one per worker, so a read allocates nothing) by raw system calls,
// for the reason threadCPU gives: procfs files are generated in memory,
// so open, read and close never wait on a device.
type schedFile struct{ buf []byte }

// migrations is the kernel's count of the calling thread's migrations so
// far (se.nr_migrations, which kernels built with CONFIG_SCHED_DEBUG have);
// ok false when it cannot be read. The caller must be locked to its OS
// thread (or be a lone worker).
func (f *schedFile) migrations() (n uint64, ok bool) {
	if f.buf == nil {
		// The line is the file's sixth: 8 KiB holds the whole file (under
		// 2 KiB on 6.18) with room for kernels that add fields.
		f.buf = make([]byte, 8<<10)
	}
	fd, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&threadSched[0])),
		uintptr(unix.O_RDONLY|unix.O_CLOEXEC), 0, 0, 0)
	if e != 0 {
		return 0, false
	}
	size := 0
	for size < len(f.buf) {
		r, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&f.buf[size])), uintptr(len(f.buf)-size))
		if e == unix.EINTR {
			continue
		}
		if e != 0 || r == 0 {
			break
		}
		size += int(r)
	}
	unix.RawSyscall(unix.SYS_CLOSE, fd, 0, 0)
	n, err := parseNrMigrations(f.buf[:size])
	return n, err == nil
}

// atFDCWD is AT_FDCWD as a variable: the constant is negative, which
// uintptr() refuses at compile time.
var atFDCWD = unix.AT_FDCWD
