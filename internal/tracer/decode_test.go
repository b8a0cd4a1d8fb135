package tracer

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

func rawRecord(kind, cpu, tid uint32, time uint64) []byte {
	b := make([]byte, recordSize)
	binary.NativeEndian.PutUint32(b[0:], kind)
	binary.NativeEndian.PutUint32(b[4:], cpu)
	binary.NativeEndian.PutUint32(b[8:], tid)
	binary.NativeEndian.PutUint32(b[12:], cpu+1) // on_cpu
	binary.NativeEndian.PutUint64(b[16:], time)
	binary.NativeEndian.PutUint64(b[24:], 77) // the group
	binary.NativeEndian.PutUint64(b[32:], 5)  // clock
	binary.NativeEndian.PutUint64(b[40:], 6)  // self_clock
	binary.NativeEndian.PutUint64(b[48:], 7)  // self_time
	return b
}

func TestDecode(t *testing.T) {
	r, err := decode(rawRecord(3, 1, 4242, 1_000_000_000))
	require.NoError(t, err)
	assert.Equal(t, throttle.Record{Kind: throttle.RecordBack, CPU: 1, OnCPU: 2, TID: 4242, Time: 1_000_000_000,
		Group: 77, Clock: 5, SelfClock: 6, SelfTime: 7}, r)
}

func TestDecodeRejects(t *testing.T) {
	for name, raw := range map[string][]byte{
		"short":   rawRecord(1, 0, 1, 2)[:20],
		"long":    append(rawRecord(1, 0, 1, 2), 0, 0, 0, 0),
		"empty":   nil,
		"kind 0":  rawRecord(0, 0, 1, 2),
		"kind 99": rawRecord(99, 0, 1, 2),
	} {
		_, err := decode(raw)
		assert.Error(t, err, name)
	}
}
