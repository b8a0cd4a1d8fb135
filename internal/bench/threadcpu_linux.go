//go:build linux

package bench

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadCPU is the calling thread's CPU time. The caller must be locked to
// its OS thread (or be a lone worker, see lone).
//
// A raw system call, as the worker's other reads around its batch: the Go
// scheduler does not see the thread enter the kernel, so it never hands
// the worker's P to another thread meanwhile. With a plain (x/sys)
// syscall, a worker throttled inside one looked to the runtime as if it
// were blocked in the kernel for the rest of the period: sysmon took its
// P, and after taking one it polls every 20 µs for a while, all of it CPU
// time the slice pays. clock_gettime never blocks; the vDSO does not
// serve CPU clocks.
func threadCPU() time.Duration {
	return rawClock(unix.CLOCK_THREAD_CPUTIME_ID)
}

// processCPU is the whole process's CPU time, every thread of it; 0 where
// it cannot be read.
func processCPU() time.Duration {
	return rawClock(unix.CLOCK_PROCESS_CPUTIME_ID)
}

func rawClock(id int) time.Duration {
	var ts unix.Timespec
	if _, _, e := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, uintptr(id), uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
