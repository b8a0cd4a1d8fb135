// Package tracer records, from the kernel, when one cgroup's threads were
// held off a CPU by CFS bandwidth throttling, and hands each interval to a
// callback as a throttle.Event. It is Linux-only; elsewhere Probe and Start
// say so.
//
// What is attached: a BPF program on each of the scheduler's sched_switch
// and sched_wakeup tracepoints (tp_btf, else raw_tp), nothing else. An
// interval starts when a thread of the cgroup (or of a cgroup below it) is
// switched out still runnable while its cfs_rq on that CPU is throttled
// (->throttled, or ->throttle_count for a throttled ancestor), or is
// woken onto such a cfs_rq, and ends when that thread is switched in
// again, or when the group is seen running on that CPU again, whichever
// comes first; throttle.bpf.c has the details.
//
// Kernels differ in how a throttled stretch shows. Debian's 6.1 (the VM)
// dequeues the cfs_rq at once: one interval per thread per stretch. 6.18
// (our hosts) throttles each task on its way back to user space, and a
// stretch can come as hundreds of intervals microseconds apart (the
// thread switched in for a few microseconds, still throttled, then out
// again): their per-CPU union is the stretch, and the count is not the
// number of stretches, so merge before counting.
package tracer

import (
	"encoding/binary"
	"fmt"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// recordSize is the size of struct event in throttle.bpf.c:
// u32 cpu, u32 tid, u64 start_ns, u64 end_ns, u64 group.
const recordSize = 32

// decode turns one ring-buffer record (struct event, in the host's byte
// order, which is the BPF program's) into an Event.
func decode(raw []byte) (throttle.Event, error) {
	if len(raw) != recordSize {
		return throttle.Event{}, fmt.Errorf("decode throttle event: record of %d bytes, want %d", len(raw), recordSize)
	}
	e := throttle.Event{
		CPU:   int(binary.NativeEndian.Uint32(raw[0:])),
		TID:   int32(binary.NativeEndian.Uint32(raw[4:])),
		Start: int64(binary.NativeEndian.Uint64(raw[8:])),
		End:   int64(binary.NativeEndian.Uint64(raw[16:])),
		Group: binary.NativeEndian.Uint64(raw[24:]),
	}
	if e.End < e.Start {
		return throttle.Event{}, fmt.Errorf("decode throttle event: ends at %d ns before it starts at %d ns", e.End, e.Start)
	}
	return e, nil
}
