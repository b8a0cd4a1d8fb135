package usage

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Counter reads a cumulative CPU usage counter (cgroup.Cgroup is one).
type Counter interface {
	Usage() (time.Duration, error)
}

// Clock is monotonic time since an origin of its own, and a way to wait for
// an instant of it: real time in the command, a script in tests.
type Clock interface {
	Now() time.Duration
	// SleepUntil returns at t (at once when t has passed), or with ctx's
	// error when ctx ends first.
	SleepUntil(ctx context.Context, t time.Duration) error
}

// PeakInterval is the window of a run's peak_cpus_100ms and of its usage
// in each interval (the runner samples the workload every PeakInterval):
// the bandwidth controller's default period, the scale at which a quota
// bites.
const PeakInterval = 100 * time.Millisecond

// Sampler reads Counter at start + k × Interval, k = 0, 1, …, until
// Duration has passed (0: until ctx ends). The instants are absolute, so a
// late wake-up does not delay the ones after it.
//
// What a reading costs is the Counter's and the Clock's: with a
// cgroup.UsageFile and a PollClock (sample's) it is one thread woken, one
// read, and no allocation; with a cgroup.Cgroup and NewClock, an open, read
// and close of the counter file and three threads woken. Pressure, where
// it is read (sample's on v2), adds its own reads and allocations.
type Sampler struct {
	Counter  Counter
	Clock    Clock
	Interval time.Duration
	Duration time.Duration
	// CPU reads this process's CPU time, to report the sampler's own cost;
	// nil leaves it unmeasured.
	CPU func() (time.Duration, error)
	// Pressure reads the cgroup's CPU pressure beside each reading of the
	// counter (sample's: cgroup.Cgroup.Pressure); nil, or ok false at the
	// first reading (v1, PSI off), reads none. It costs more than the
	// counter: containerd/cgroups reads cpu.stat and cpu.pressure, and
	// allocates.
	Pressure func() (Pressure, bool, error)
}

// Pressure is a cgroup's CPU pressure totals at one reading (cgroup v2's
// cpu.pressure, as internal/cgroup reads it; plain values here, so that a
// trace names no machinery): the time some and all of its threads were
// runnable and not running; FullOK says the kernel keeps full.
type Pressure struct {
	Some, Full time.Duration
	FullOK     bool
}

// Recording is what a Sampler collected, and how well it kept time.
type Recording struct {
	Trace Trace
	// Late is, per sample, how long after its scheduled instant the
	// counter was read (the instant recorded is the middle of the read).
	Late []time.Duration
	// Missed counts scheduled instants skipped because the sampler woke up
	// after the next one had passed already.
	Missed int
	// CPU is the sampler's own CPU time (all of this process's) over the
	// sampling; CPUKnown says whether it was measured.
	CPU      time.Duration
	CPUKnown bool
	// Interrupted says ctx ended before Duration had passed.
	Interrupted bool
	// Err is why sampling stopped early (a read failed, the counter went
	// backwards); what was collected before it is kept.
	Err error
	// Pressure is the cgroup's CPU pressure at each sample of Trace; nil
	// where it was not read at every one (none kept, a read that failed,
	// a total that went down).
	Pressure []Pressure
}

// Run samples until Duration has passed, ctx ends, or a read fails.
func (s Sampler) Run(ctx context.Context) Recording {
	rec := Recording{Trace: Trace{Interval: s.Interval}}
	cpu0, cpuErr := s.cpu()
	start := s.Clock.Now()
	last := -1 // the last scheduled instant, in intervals; -1 = until ctx ends
	if s.Duration > 0 {
		last = int(s.Duration / s.Interval)
		// Room for every reading up front (up to a bound, growing by
		// append beyond it): no allocation between readings, so no garbage
		// collection, whose cycles wake threads of their own, while sampling.
		n := min(last+1, maxPrealloc)
		rec.Trace.Samples, rec.Late = make([]Sample, 0, n), make([]time.Duration, 0, n)
		if s.Pressure != nil {
			rec.Pressure = make([]Pressure, 0, n)
		}
	}
	pressure := s.Pressure != nil
	for k := 0; ; {
		due := start + time.Duration(k)*s.Interval
		if err := s.Clock.SleepUntil(ctx, due); err != nil {
			rec.Interrupted = true
			break
		}
		t0 := s.Clock.Now()
		u, err := s.Counter.Usage()
		var p Pressure
		if pressure && err == nil {
			var ok bool
			p, ok, err = s.Pressure()
			// Pressure that cannot be read leaves the series out, never
			// the usage.
			if pressure = ok && err == nil; !pressure {
				rec.Pressure, err = nil, nil
			}
		}
		t1 := s.Clock.Now()
		if err != nil {
			rec.Err = fmt.Errorf("reading the usage counter: %w", err)
			break
		}
		smp := Sample{At: t0 + (t1-t0)/2 - start, Usage: u}
		if n := len(rec.Trace.Samples); n > 0 && u < rec.Trace.Samples[n-1].Usage {
			rec.Err = fmt.Errorf("%w: read %v after %v", ErrBackwards, u, rec.Trace.Samples[n-1].Usage)
			break
		}
		rec.Trace.Samples = append(rec.Trace.Samples, smp)
		rec.Late = append(rec.Late, t0-due)
		if pressure {
			if n := len(rec.Pressure); n > 0 && (p.Some < rec.Pressure[n-1].Some || p.Full < rec.Pressure[n-1].Full) {
				pressure, rec.Pressure = false, nil
			} else {
				rec.Pressure = append(rec.Pressure, p)
			}
		}
		if k == last {
			break
		}
		// The next instant still ahead; one that has passed is skipped
		// rather than read at once, which would make a sliver of an interval.
		next := k + 1
		for now := s.Clock.Now(); start+time.Duration(next)*s.Interval <= now && next != last; next++ {
			rec.Missed++
		}
		k = next
	}
	if cpu1, err := s.cpu(); cpuErr == nil && err == nil {
		rec.CPU, rec.CPUKnown = cpu1-cpu0, true
	}
	return rec
}

// maxPrealloc bounds the readings Run makes room for before it starts:
// 24 h at 1 ms would be 2 GB.
const maxPrealloc = 1 << 16

func (s Sampler) cpu() (time.Duration, error) {
	if s.CPU == nil {
		return 0, errors.New("not measured")
	}
	return s.CPU()
}

// NewClock is the real monotonic clock on Go's timers, its origin now:
// for occasional use; a long sampling wants OpenClock's PollClock.
func NewClock() Clock { return realClock{origin: time.Now()} }

type realClock struct{ origin time.Time }

func (c realClock) Now() time.Duration { return time.Since(c.origin) }

func (c realClock) SleepUntil(ctx context.Context, t time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := t - c.Now()
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
