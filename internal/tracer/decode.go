package tracer

import (
	"encoding/binary"
	"fmt"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// recordSize is the size of struct record in throttle.bpf.c: u32 kind,
// cpu, tid, on_cpu; u64 time_ns, group, clock, self_clock, self_time, next.
const recordSize = 64

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
		Next:      u64(56),
	}
	if r.Kind < throttle.RecordHold || r.Kind > throttle.RecordWoken {
		return throttle.Record{}, fmt.Errorf("decode throttle record: unknown kind %d", r.Kind)
	}
	return r, nil
}
