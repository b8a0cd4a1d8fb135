package waits

import (
	"sync"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// Readers read what the measured threads waited for: the threads of the
// measured cgroup, one thread's scheduler counters, the cgroup's CPU
// pressure (ok false where the kernel keeps none) and its throttled time
// (ok false where it has no bandwidth counters). Of makes the kernel's; a
// test fakes them.
type Readers struct {
	Threads   func() ([]int, error)
	SchedStat func(tid int) (host.SchedStat, error)
	Pressure  func() (p cgroup.Pressure, ok bool, err error)
	Throttled func() (d time.Duration, ok bool, err error)
}

// Of reads the waits of cgroup g's threads, below root; read reads a
// thread's scheduler counters (nil: host.ReadSchedStat).
func Of(g cgroup.Cgroup, root string, read func(root string, tid int) (host.SchedStat, error)) *Readers {
	if read == nil {
		read = host.ReadSchedStat
	}
	return &Readers{
		Threads:   g.Threads,
		SchedStat: func(tid int) (host.SchedStat, error) { return read(root, tid) },
		Pressure:  g.Pressure,
		Throttled: func() (time.Duration, bool, error) {
			st, err := g.Stat()
			if err != nil || st.ThrottledTime == nil {
				return 0, false, err
			}
			return *st.ThrottledTime, true, nil
		},
	}
}

// maxThreads is the most threads a window's waits are read for, every
// usage.PeakInterval: a created slice holds a few dozen; current mode in a
// cgroup as wide as a host's session can hold thousands, whose reading
// would load the machine it measures (the waits are then not read).
const maxThreads = 1024

// Tracker follows the measured threads' run delay over a window. The
// threads are read at its start, every usage.PeakInterval and at its end, and
// each keeps the first and the last counters read: a thread that exits
// (a command's process, a server's worker) is counted to its last sample,
// one that appears from its start (its whole life is in the window).
//
// The run delay holds the time the quota held a thread (runnable, not
// running), and the cgroup's throttled time cannot simply be taken off
// the sum: cpu.stat counts a throttled run queue's time once however
// many threads wait on it, so four workers held together leave three
// times the hold in the difference. Beside nice-19 loops on our 2-CPU
// host, the README's size example's windows at 0.4 CPUs showed a run
// delay of 2,600–3,000 ms against 1,100–1,200 ms throttled, and the
// difference read as a wait share of 0.8: a quota's hold taken for a busy
// machine. So each thread's wait is taken apart from the hold between
// samples: in each interval a thread is held at most the cgroup's
// throttled time over it (the sum over its run queues of their throttled
// time, which holds the thread's own), and what its run delay grew beyond
// that is the wait (waited). The quota's part errs low, never high: a
// thread that both waited and was held in one interval on a machine where
// several run queues were throttled counts part of its wait as held. The
// work's own threads waiting for each other stay in the wait, as before.
type Tracker struct {
	w           *Readers
	mu          sync.Mutex
	first, last map[int]host.SchedStat
	read        bool // a thread list was read
	// pressure0 and pressure1 are the cgroup's CPU pressure at the
	// window's start and end, read at at0 and at1.
	pressure0  *cgroup.Pressure
	pressureOK bool
	pressure1  *cgroup.Pressure
	at0, at1   time.Time
	started    bool
	// throttled is the cgroup's throttled time at the last sample; split
	// says every sample read it, so waited holds the wait beyond the hold.
	throttled time.Duration
	split     bool
	waited    time.Duration
}

// NewTracker follows the threads w reads; nil w follows nothing, and its
// Close gives nil.
func NewTracker(w *Readers) *Tracker {
	return &Tracker{w: w, first: map[int]host.SchedStat{}, last: map[int]host.SchedStat{}}
}

// sample reads every thread's counters now. A reader that fails leaves
// the sample out: it never fails a run.
func (t *Tracker) sample() {
	if t == nil || t.w == nil {
		return
	}
	tids, err := t.w.Threads()
	if err != nil || len(tids) > maxThreads {
		return
	}
	read := make(map[int]host.SchedStat, len(tids))
	for _, tid := range tids {
		if s, err := t.w.SchedStat(tid); err == nil {
			read[tid] = s
		}
	}
	var throttled time.Duration
	split := t.w.Throttled != nil
	if split {
		var err error
		throttled, split, err = t.w.Throttled()
		split = split && err == nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	held := throttled - t.throttled
	t.split = split && (t.split || !t.started) && held >= 0
	for tid, s := range read {
		prev, seen := t.last[tid]
		if !seen {
			if t.started {
				prev = host.SchedStat{} // born in the window
			} else {
				prev = s
			}
			t.first[tid] = prev
		}
		if d := s.RunDelay - prev.RunDelay; t.split && d > held {
			t.waited += d - held
		}
		t.last[tid] = s
	}
	t.throttled = throttled
	t.read, t.started = true, true
}

// Open takes the window's first sample and the pressure at its start.
func (t *Tracker) Open() {
	if t == nil || t.w == nil {
		return
	}
	t.sample()
	if t.w.Pressure != nil {
		if p, ok, err := t.w.Pressure(); err == nil && ok {
			t.pressure0, t.pressureOK, t.at0 = &p, true, time.Now()
		}
	}
}

// Every samples every usage.PeakInterval until the returned stop is called.
func (t *Tracker) Every() (stop func()) {
	if t == nil || t.w == nil {
		return func() {}
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(usage.PeakInterval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				t.sample()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); <-stopped }) }
}

// Close takes the last sample and the pressure at the end, and gives the
// window's waits; nil where no thread list was read.
func (t *Tracker) Close() *build.Waits {
	if t == nil || t.w == nil {
		return nil
	}
	t.sample()
	if t.pressureOK {
		if p, ok, err := t.w.Pressure(); err == nil && ok {
			t.pressure1, t.at1 = &p, time.Now()
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.read {
		return nil
	}
	w := &build.Waits{Threads: len(t.last)}
	if t.split {
		waited := t.waited
		w.Waited = &waited
	}
	for tid, l := range t.last {
		f := t.first[tid]
		if l.RunDelay >= f.RunDelay && l.OnCPU >= f.OnCPU { // a reused TID starts again from 0: left out
			w.RunDelay += l.RunDelay - f.RunDelay
			w.OnCPU += l.OnCPU - f.OnCPU
		}
	}
	if p0, p1 := t.pressure0, t.pressure1; p0 != nil && p1 != nil && p1.Some >= p0.Some {
		some := p1.Some - p0.Some
		w.PressureSome, w.PressureWindow = &some, t.at1.Sub(t.at0)
		if p0.FullOK && p1.FullOK && p1.Full >= p0.Full {
			full := p1.Full - p0.Full
			w.PressureFull = &full
		}
	}
	return w
}
