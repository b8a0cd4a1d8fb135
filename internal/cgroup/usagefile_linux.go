//go:build linux

package cgroup

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// counterFile is an open pseudo-file read with pread(2) issued as a raw
// system call. An ordinary one (syscall.Pread, os.File.ReadAt) tells the Go
// scheduler it may block, and that wakes the runtime's monitor thread
// (sysmon) out of its deep sleep: a second thread woken for every reading of
// an otherwise idle sampler. Reading a cgroup's counter does not wait for
// I/O (the kernel renders it from memory; v2's cpu.stat first flushes the
// per-CPU statistics, under a lock), so the scheduler need not know.
type counterFile struct{ fd int }

// openCounter opens the counter at path beneath fs's mount point, as
// every cgroup file is read (cgroupfs_linux.go).
func openCounter(fs cgroupfs, path string) (counterFile, error) {
	fd, err := fs.openFd("open", path, unix.O_RDONLY, 0)
	if err != nil {
		return counterFile{fd: -1}, err
	}
	return counterFile{fd: fd}, nil
}

func (f *counterFile) readAt0(b []byte) (int, error) {
	for {
		n, _, errno := unix.RawSyscall6(unix.SYS_PREAD64, uintptr(f.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0, 0)
		switch errno {
		case 0:
			return int(n), nil
		case unix.EINTR:
			continue
		case unix.ENODEV:
			return 0, errCounterGone
		}
		return 0, errno
	}
}

func (f *counterFile) close() error {
	if f.fd < 0 {
		return nil
	}
	err := unix.Close(f.fd)
	f.fd = -1
	return err
}
