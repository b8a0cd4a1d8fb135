package bench

import (
	"context"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload"
	"github.com/throttlebench/throttlebench/internal/report"
)

// Calibration says what the open loop's CPU work is and how much of it
// makes a millisecond on this machine, so a result can be read (and
// doubted) without knowing the code. A request runs the loop until its
// thread's CPU clock says --work has passed (see work); the calibration
// sizes the slices of the loop between two readings of that clock.
//
// It is the result's own type (report.Calibration), measured here.
type Calibration = report.Calibration

const (
	spinLoop = workload.SpinLoop
	// calibrationRound is the least CPU time one timed round lasts: long
	// against the clock's resolution and a timer interrupt, short enough
	// that all rounds together stay around 25 ms.
	calibrationRound  = 2 * time.Millisecond
	calibrationRounds = 9
)

// spin runs n iterations of the calibrated loop, the spin workload's
// (workload.Spin): a chain of dependent integer operations, the same cost
// every iteration, touching no memory.
func spin(n uint64) { workload.Spin(n) }

// Calibrate measures how many spin iterations make a millisecond of this
// thread's CPU time. CPU time rather than wall time, because the child
// calibrates inside the slice: a throttled or preempted stretch stops the
// thread's CPU clock but not the wall clock. The median of the rounds,
// because it is what a typical request will cost; an interrupt's cost
// lands in one round, not in the figure. Where there is no per-thread CPU
// clock it falls back to wall time and says so in Clock.
func Calibrate() Calibration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	begin := time.Now()
	cal := Calibration{Loop: spinLoop, Clock: "thread CPU time (CLOCK_THREAD_CPUTIME_ID)", Rounds: calibrationRounds}
	timed := func(n uint64) time.Duration {
		w0, c0 := time.Now(), threadCPU()
		spin(n)
		if c := threadCPU() - c0; c > 0 {
			return c
		}
		cal.Clock = "wall time (no thread CPU clock here)"
		return time.Since(w0)
	}
	n := uint64(1 << 10)
	for timed(n) < calibrationRound && n < math.MaxUint64/2 {
		n *= 2
	}
	perMs := make([]float64, cal.Rounds)
	for i := range perMs {
		perMs[i] = float64(n) / (float64(timed(n)) / float64(time.Millisecond))
	}
	slices.Sort(perMs)
	cal.IterationsPerMs = perMs[len(perMs)/2]
	cal.RoundIterations = n
	cal.Took = time.Since(begin)
	return cal
}

// workSlice is how much of the loop runs between two readings of the
// thread's CPU clock: short against a request, long against the reading (a
// system call of well under a microsecond).
const workSlice = 50 * time.Microsecond

// work spends d of the calling thread's CPU time (it must be locked to its
// OS thread) in the calibrated loop: slices of the loop, sized by the
// calibration, until the thread's CPU clock has advanced by d, the last
// slice cut to what is left. The clock, not the count, decides when it is
// done, so a request costs d of CPU however fast the loop runs now (turbo,
// a busy SMT sibling, another calibration in another configuration): the
// same work in both arms of an A/B, and exactly what the quota is charged.
// Where there is no thread CPU clock it runs the calibrated count. It
// returns early with ctx's error: a long request must not outlive the run.
func work(ctx context.Context, d time.Duration, perMs float64) error {
	if d <= 0 {
		return nil
	}
	iters := func(t time.Duration) uint64 {
		return max(uint64(float64(t)/float64(time.Millisecond)*perMs), 1)
	}
	start := threadCPU()
	if start == 0 {
		return spinCount(ctx, iters(d), iters(workSlice))
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		left := d - (threadCPU() - start)
		if left <= 0 {
			return nil
		}
		spin(iters(min(left, workSlice)))
	}
}

// spinCount spins n iterations in slices of chunk, checking ctx between.
func spinCount(ctx context.Context, n, chunk uint64) error {
	for n > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(n, chunk)
		spin(k)
		n -= k
	}
	return nil
}
