package bench

import (
	"sync"
	"time"
)

// monoPair is a time.Time and CLOCK_MONOTONIC (Monotonic) read at the same
// instant, to within half the gap between two readings of the latter.
type monoPair struct {
	t    time.Time
	mono int64
}

// monoBase is read once per process: Go's monotonic clock is
// CLOCK_MONOTONIC from another origin, so one pair converts every instant.
var monoBase = sync.OnceValue(func() monoPair {
	best := monoPair{}
	bestGap := int64(-1)
	for range 5 { // the tightest of a few: a preemption can split one
		m1 := Monotonic()
		t := time.Now()
		m2 := Monotonic()
		if gap := m2 - m1; bestGap < 0 || gap < bestGap {
			best, bestGap = monoPair{t: t, mono: m1 + gap/2}, gap
		}
	}
	return best
})

// monoOf is t on CLOCK_MONOTONIC, in ns: what an absolute sleep takes.
func monoOf(t time.Time) int64 {
	b := monoBase()
	return b.mono + int64(t.Sub(b.t))
}
