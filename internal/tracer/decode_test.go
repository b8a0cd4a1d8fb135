package tracer

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

func record(cpu, tid uint32, start, end uint64) []byte {
	b := make([]byte, recordSize)
	binary.NativeEndian.PutUint32(b[0:], cpu)
	binary.NativeEndian.PutUint32(b[4:], tid)
	binary.NativeEndian.PutUint64(b[8:], start)
	binary.NativeEndian.PutUint64(b[16:], end)
	binary.NativeEndian.PutUint64(b[24:], 77) // the group
	return b
}

func TestDecode(t *testing.T) {
	e, err := decode(record(1, 4242, 1_000_000_000, 1_090_000_000))
	require.NoError(t, err)
	assert.Equal(t, throttle.Event{CPU: 1, TID: 4242, Start: 1_000_000_000, End: 1_090_000_000, Group: 77}, e)

	// A zero-length interval (switched out and in within one clock tick) is
	// an event, not an error.
	e, err = decode(record(0, 7, 5, 5))
	require.NoError(t, err)
	assert.Equal(t, int64(0), e.End-e.Start)
}

func TestDecodeRejects(t *testing.T) {
	for name, raw := range map[string][]byte{
		"short":     record(0, 1, 2, 3)[:20],
		"long":      append(record(0, 1, 2, 3), 0, 0, 0, 0),
		"empty":     nil,
		"backwards": record(0, 1, 10, 9),
	} {
		_, err := decode(raw)
		assert.Error(t, err, name)
	}
}
