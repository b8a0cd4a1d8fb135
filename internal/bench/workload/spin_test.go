package workload

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
)

func TestSpinDeclaresUnits(t *testing.T) {
	s, err := decl.Lookup("spin")
	require.NoError(t, err)
	require.Len(t, s.Params, 1)
	p := s.Params[0]
	assert.Equal(t, "units", p.Name)
	assert.Equal(t, 1000, p.Default)
	assert.Equal(t, [2]int{1, 1_000_000_000}, [2]int{p.Min, p.Max})
}

// One operation is units × SpinUnit steps of the xorshift64 chain: the
// sink after one operation of 3 units is the reference chain's value after
// 3000 steps from the same start.
func TestSpinOperationIsUnitsTimesTheChain(t *testing.T) {
	w, err := newW("spin", args{"units": 3})
	require.NoError(t, err)
	assert.Equal(t, uint64(3*SpinUnit), w.(*spinWork).iters)

	spinSink.Store(0x9E3779B97F4A7C15)
	x := spinSink.Load() | 1
	for range 3 * SpinUnit {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	require.NoError(t, w.Do())
	assert.Equal(t, x, spinSink.Load())
}

// Per-operation cost of spin at one unit and at its default, 1000 units:
// what a unit costs here (ns/op of units=1), and what an operation of the
// default costs (the yardstick of the driver's placement sampling,
// BenchmarkPlacementSampling).
func BenchmarkSpinOp(b *testing.B) {
	for _, units := range []int{1, 1000} {
		b.Run(fmt.Sprintf("units=%d", units), func(b *testing.B) {
			w, err := newW("spin", args{"units": units})
			require.NoError(b, err)
			for b.Loop() {
				_ = w.Do()
			}
		})
	}
}
