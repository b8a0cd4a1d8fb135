//go:build linux

package httpload

import (
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// shortSlice gives every thread of the process a scheduler slice of d
// (EEVDF's custom slice: sched_attr's sched_runtime for a SCHED_OTHER
// thread, Linux 6.12 and later, no privilege needed; older kernels ignore
// it), until the returned restore gives every thread that has it the
// default back (sched_getattr shows the slice in force, 1.4 ms here, and
// cannot tell a default one from one set: a caller's own custom slice
// would be lost, and throttlebench sets none). A waking thread whose
// slice is shorter than the running one's has the earlier deadline and
// preempts it, so the worker that wakes for an arrival does not wait for
// another process's slice to end. Beside another helper's CPU-bound runs
// on this 2-vCPU VM, at 2,000/s, the send's lateness had a p99 of 212,
// 1029 and 3766 µs without, 169, 392 and 285 µs with a 100 µs slice,
// taking turns.
func shortSlice(d time.Duration) (restore func()) {
	eachThread(func(tid int) {
		a, err := unix.SchedGetAttr(tid, 0)
		if err != nil || a.Policy != unix.SCHED_NORMAL {
			return
		}
		a.Runtime = uint64(d)
		_ = unix.SchedSetAttr(tid, a, 0)
	})
	return func() {
		eachThread(func(tid int) {
			a, err := unix.SchedGetAttr(tid, 0)
			if err != nil || a.Policy != unix.SCHED_NORMAL || a.Runtime != uint64(d) {
				return
			}
			a.Runtime = 0 // the default
			_ = unix.SchedSetAttr(tid, a, 0)
		})
	}
}

// eachThread calls f with the id of each of the process's threads.
func eachThread(f func(tid int)) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			f(tid)
		}
	}
}
