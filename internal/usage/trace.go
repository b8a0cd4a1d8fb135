package usage

import (
	"errors"
	"fmt"
	"time"
)

// Sample is one reading of a cumulative CPU usage counter.
type Sample struct {
	At    time.Duration // when it was read, since the sampler started
	Usage time.Duration // the counter: CPU time used since the cgroup was made
}

// Trace is a run of readings at (nominally) every Interval: n+1 samples make
// n intervals. Each interval's usage is taken over the instants the counter
// was actually read, so a late reading shifts an interval's bounds but does
// not inflate its usage.
type Trace struct {
	Interval time.Duration
	Samples  []Sample
}

// ErrBackwards says a usage counter went down: the cgroup was removed and
// made anew between two readings, and no interval spans them truly.
var ErrBackwards = errors.New("the usage counter went backwards (the cgroup was removed and made anew)")

// Len is the number of intervals.
func (t Trace) Len() int { return max(len(t.Samples)-1, 0) }

// Used is the CPU time used in interval i.
func (t Trace) Used(i int) time.Duration { return t.Samples[i+1].Usage - t.Samples[i].Usage }

// Span is how long interval i actually lasted.
func (t Trace) Span(i int) time.Duration { return t.Samples[i+1].At - t.Samples[i].At }

// CPUs is the usage per interval in CPUs: CPU time used over the time it
// was used in (1.5 = one and a half CPUs busy throughout).
func (t Trace) CPUs() []float64 {
	out := make([]float64, t.Len())
	for i := range out {
		out[i] = float64(t.Used(i)) / float64(t.Span(i))
	}
	return out
}

// Check says whether the samples make a trace: instants strictly
// increasing, the counter never going down.
func (t Trace) Check() error {
	for i := 1; i < len(t.Samples); i++ {
		a, b := t.Samples[i-1], t.Samples[i]
		if b.At <= a.At {
			return fmt.Errorf("sample %d at %v is not after sample %d at %v", i, b.At, i-1, a.At)
		}
		if b.Usage < a.Usage {
			return fmt.Errorf("%w: sample %d reads %v after %v", ErrBackwards, i, b.Usage, a.Usage)
		}
	}
	return nil
}

// Coarse is the trace at a coarser granularity: every k-th sample, so each
// of its intervals is k of t's, and its usage their CPU time over their
// whole span. Intervals left over at the end (fewer than k) are dropped.
func (t Trace) Coarse(k int) Trace {
	if k <= 1 {
		return t
	}
	c := Trace{Interval: t.Interval * time.Duration(k)}
	for i := 0; i < len(t.Samples); i += k {
		c.Samples = append(c.Samples, t.Samples[i])
	}
	return c
}

// Per is how many intervals of t make one window of length w, at least 1:
// the k of Coarse for a 1 s view of a 100 ms trace is 10.
func (t Trace) Per(w time.Duration) int {
	if t.Interval <= 0 {
		return 1
	}
	return max(int((w+t.Interval/2)/t.Interval), 1)
}
