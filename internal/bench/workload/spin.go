package workload

import (
	"sync/atomic"

	"github.com/throttlebench/throttlebench/internal/report"
)

// SpinUnit is how many iterations of the spin loop make one unit.
const SpinUnit = 1000

// SpinLoop says what one iteration of the spin loop computes: the same
// loop as the open loop's calibrated work (internal/bench/calibrate.go).
const SpinLoop = "xorshift64 step (3 shifts, 3 xors, one dependent chain), result kept"

func newSpin(ps report.Params, _ int) (Workload, error) {
	return &spinWork{iters: uint64(ps.Int("units")) * SpinUnit}, nil
}

// spinSink keeps the loop's result alive, so the compiler cannot drop it.
var spinSink atomic.Uint64

// spinWork is the cheapest pure-CPU work: a chain of dependent integer
// operations, the same cost every iteration, touching no memory, like a
// shell's integer increment in a loop.
type spinWork struct{ iters uint64 }

func (w *spinWork) Do() error {
	Spin(w.iters)
	return nil
}

// Spin runs n iterations of the spin loop.
func Spin(n uint64) {
	x := spinSink.Load() | 1 // xorshift stays non-zero from a non-zero start
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	spinSink.Store(x)
}
