package runner

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/tracewindow"
	"github.com/throttlebench/throttlebench/internal/usage"
	"github.com/throttlebench/throttlebench/internal/waits"
)

// Window is one measured stretch of a run, the same for every engine: the
// counters read just before its measured part, that part, the counters
// read again just after, and what the machine did meanwhile. Each field
// left nil is a reading the engine does not take.
type Window struct {
	// Group is the measured cgroup, whose cpu.stat frames the window; nil
	// for none (a target in no known cgroup, a fleet, whose instances read
	// their own slices).
	Group Group
	// Trace is the run's trace window (--trace), opened and closed with it.
	Trace *tracewindow.Window
	// HostCPU reads the machine's CPU times; Usage the measured cgroup's
	// usage and Process this process's CPU time, where they mean something
	// (current mode; a client beside its server).
	HostCPU        func() (host.CPUTimes, error)
	Usage, Process func() (time.Duration, error)
	// CPU is the workload's CPU time, sampled every usage.PeakInterval on Clock
	// for the peak; nil for none.
	CPU   func() (time.Duration, error)
	Clock func() usage.Clock
	// Waits reads the measured threads' waits (Machine.WaitsOf): the
	// window's contention; nil for none.
	Waits *waits.Readers
}

// Measured is what a window read: the cgroup's counters' change, the
// machine's background, how long it lasted, the workload's CPU time over
// it, its peak in any whole usage.PeakInterval (nil where not known) and its
// use in each whole usage.PeakInterval, in CPUs (the trace size's usage rules
// are computed from).
type Measured struct {
	Stat       cgroup.CPUStat
	Background build.Background
	Elapsed    time.Duration
	CPU        *time.Duration
	Peak       *float64
	Intervals  []float64
}

// RunWindow runs run, which calls open just before its measured part (a
// child's go-ahead, the first arrival, the first measured iteration), and
// reads the window around it. The workload's CPU time at the end comes
// from cpuAtEnd, given the result (a child that has exited cannot be read
// any more), or, when nil, from w.CPU. An error from open or run ends it
// with nothing measured; the sampler stops on every path.
func RunWindow[R any](ctx context.Context, w Window, run func(open func() error) (R, error), cpuAtEnd func(R) (time.Duration, error)) (R, Measured, error) {
	var (
		m        Measured
		before   cgroup.CPUStat
		bgBefore reading
		cpu0     *time.Duration
		t0       time.Time
		stopPeak = func() (*float64, []float64) { return nil, nil }
		opened   bool
		wt       = waits.NewTracker(w.Waits)
		stopWait = func() {}
	)
	res, err := run(func() error {
		opened = true
		w.Trace.Open()
		if w.Group != nil {
			var err error
			if before, err = w.Group.Stat(); err != nil {
				return err
			}
		}
		bgBefore = read(w.HostCPU, w.Usage, w.Process)
		wt.Open()
		stopWait = wt.Every()
		if w.CPU != nil {
			if c, err := w.CPU(); err == nil {
				cpu0 = &c
			}
			stopPeak = samplePeak(ctx, w.Clock(), w.CPU)
		}
		t0 = time.Now()
		return nil
	})
	defer stopPeak()
	defer stopWait()
	if err == nil && !opened {
		err = errors.New("the measured part never began")
	}
	if err != nil {
		return res, m, err
	}
	m.Elapsed = time.Since(t0)
	m.Peak, m.Intervals = stopPeak()
	stopWait()
	end := w.CPU
	if cpuAtEnd != nil {
		end = func() (time.Duration, error) { return cpuAtEnd(res) }
	}
	if cpu0 != nil {
		if c, err := end(); err == nil && c >= *cpu0 {
			d := c - *cpu0
			m.CPU = &d
		}
	}
	bgAfter := read(w.HostCPU, w.Usage, w.Process)
	m.Background = background(bgBefore, bgAfter)
	m.Background.Waits = wt.Close()
	var after cgroup.CPUStat
	if w.Group != nil {
		after, err = w.Group.Stat()
	}
	w.Trace.Close()
	if err != nil {
		return res, m, err
	}
	m.Stat = after.Sub(before)
	return res, m, nil
}

// reading is what the counters the warnings need, besides cpu.stat, said
// at one moment.
type reading struct {
	at      time.Time
	host    *host.CPUTimes
	usage   *time.Duration // the measured cgroup's CPU usage (current mode)
	process *time.Duration // this process's CPU time (current mode)
}

// read takes a reading through the given readers (function values, so
// tests fake them); usage and process are nil where they mean nothing
// (process in a created slice: the workload is another process, alone in
// its slice). A reader that fails leaves its number unknown and its
// warning silent: it never fails a run.
func read(hostCPU func() (host.CPUTimes, error), usage, process func() (time.Duration, error)) reading {
	r := reading{at: time.Now()}
	if hostCPU != nil {
		if t, err := hostCPU(); err == nil {
			r.host = &t
		}
	}
	for _, c := range []struct {
		f   func() (time.Duration, error)
		dst **time.Duration
	}{{usage, &r.usage}, {process, &r.process}} {
		if c.f == nil {
			continue
		}
		if v, err := c.f(); err == nil {
			*c.dst = &v
		}
	}
	return r
}

// background turns two readings into what happened between them.
func background(before, after reading) build.Background {
	bg := build.Background{Window: after.at.Sub(before.at), BusyResolution: 2 * host.Tick}
	if before.host != nil && after.host != nil {
		if busy, ok := host.Busy(*before.host, *after.host, bg.Window); ok {
			bg.MachineBusy = &busy
		}
	}
	delta := func(a, b *time.Duration) *time.Duration {
		if a == nil || b == nil || *b < *a {
			return nil
		}
		d := *b - *a
		return &d
	}
	bg.CgroupUsage = delta(before.usage, after.usage)
	bg.ProcessCPU = delta(before.process, after.process)
	return bg
}

// samplePeak samples the counter every usage.PeakInterval on clk until the
// returned stop is called, which returns the highest usage in any whole
// interval, in CPUs, or nil when there was none, and the usage in each
// whole interval. stop may be called again.
func samplePeak(ctx context.Context, clk usage.Clock, counter func() (time.Duration, error)) (stop func() (*float64, []float64)) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan usage.Recording, 1)
	go func() {
		done <- usage.Sampler{Counter: counterFunc(counter), Clock: clk, Interval: usage.PeakInterval}.Run(ctx)
	}()
	var (
		peak    *float64
		cpus    []float64
		stopped bool
	)
	return func() (*float64, []float64) {
		if !stopped {
			stopped = true
			cancel()
			if cpus = (<-done).Trace.CPUs(); len(cpus) > 0 {
				m := slices.Max(cpus)
				peak = &m
			}
		}
		return peak, cpus
	}
}

// counterFunc is a function as a usage.Counter.
type counterFunc func() (time.Duration, error)

func (f counterFunc) Usage() (time.Duration, error) { return f() }
