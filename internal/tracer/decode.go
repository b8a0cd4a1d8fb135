// Package tracer records, from the kernel, when one cgroup's threads were
// held off a CPU by CFS bandwidth throttling (throttle.bpf.c says how an
// interval is recognised), and hands each interval to a callback as a
// throttle.Event. It is Linux-only; elsewhere Probe and Start say so.
package tracer

import (
	"encoding/binary"
	"fmt"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// recordSize is the size of struct event in throttle.bpf.c:
// u32 cpu, u32 tid, u64 start_ns, u64 end_ns.
const recordSize = 24

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
	}
	if e.End < e.Start {
		return throttle.Event{}, fmt.Errorf("decode throttle event: ends at %d ns before it starts at %d ns", e.End, e.Start)
	}
	return e, nil
}
