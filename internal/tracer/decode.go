// Package tracer records, from the kernel, what the scheduler did to the
// threads of the traced cgroups while CFS bandwidth throttled them, and
// hands each held interval to a callback as a throttle.Event. It is
// Linux-only; elsewhere Probe and Start say so.
//
// What is attached: a BPF program on each of the scheduler's
// sched_switch, sched_wakeup and sched_wakeup_new tracepoints (tp_btf,
// else raw_tp), nothing else. It writes raw records (a thread held on a
// throttled queue, woken onto one, switched back in; a group running
// again on a CPU) into a ring buffer; throttle.Interpreter decides where
// each interval starts and ends. throttle.bpf.c has the details. The
// groups traced are a map the program filters on, which Track and Untrack
// change while it is attached.
//
// Kernels differ in how a throttled stretch shows. Debian's 6.1 (the VM)
// dequeues the cfs_rq at once: one interval per thread per stretch. 6.18
// (our hosts; task-based throttling arrived in 6.18) throttles each task
// on its way back to user space, and a stretch can come as hundreds of
// intervals microseconds apart (the thread switched in for a few
// microseconds, still throttled, then out again): their per-CPU union is
// the stretch, and the count is not the number of stretches, so merge
// before counting.
package tracer

import (
	"encoding/binary"
	"fmt"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// recordSize is the size of struct record in throttle.bpf.c: u32 kind,
// cpu, tid, on_cpu; u64 time_ns, group, clock, self_clock, self_time.
const recordSize = 56

// decode turns one ring-buffer record (struct record, in the host's byte
// order, which is the BPF program's) into a throttle.Record.
func decode(raw []byte) (throttle.Record, error) {
	if len(raw) != recordSize {
		return throttle.Record{}, fmt.Errorf("decode throttle record: %d bytes, want %d", len(raw), recordSize)
	}
	u32 := func(i int) uint32 { return binary.NativeEndian.Uint32(raw[i:]) }
	u64 := func(i int) uint64 { return binary.NativeEndian.Uint64(raw[i:]) }
	r := throttle.Record{
		Kind:      throttle.RecordKind(u32(0)),
		CPU:       int(u32(4)),
		TID:       int32(u32(8)),
		OnCPU:     int(u32(12)),
		Time:      int64(u64(16)),
		Group:     u64(24),
		Clock:     u64(32),
		SelfClock: u64(40),
		SelfTime:  u64(48),
	}
	if r.Kind < throttle.RecordHold || r.Kind > throttle.RecordSleep {
		return throttle.Record{}, fmt.Errorf("decode throttle record: unknown kind %d", r.Kind)
	}
	return r, nil
}
