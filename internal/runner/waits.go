package runner

import (
	"sync"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report/build"
)

// Waits reads what the measured threads waited for: the threads of the
// measured cgroup, one thread's scheduler counters, and the cgroup's CPU
// pressure (ok false where the kernel keeps none). Machine.WaitsOf makes
// the kernel's; a test fakes them.
type Waits struct {
	Threads   func() ([]int, error)
	SchedStat func(tid int) (host.SchedStat, error)
	Pressure  func() (p cgroup.Pressure, ok bool, err error)
}

// WaitsOf reads the waits of cgroup g's threads, below root.
func (m Machine) WaitsOf(g cgroup.Cgroup, root string) *Waits {
	read := m.SchedStat
	if read == nil {
		read = host.ReadSchedStat
	}
	return &Waits{
		Threads:   g.Threads,
		SchedStat: func(tid int) (host.SchedStat, error) { return read(root, tid) },
		Pressure:  g.Pressure,
	}
}

// maxWaitThreads is the most threads a window's waits are read for, every
// PeakInterval: a created slice holds a few dozen; current mode in a
// cgroup as wide as a host's session can hold thousands, whose reading
// would load the machine it measures (the waits are then not read).
const maxWaitThreads = 1024

// waitTracker follows the measured threads' run delay over a window. The
// threads are read at its start, every PeakInterval and at its end, and
// each keeps the first and the last counters read: a thread that exits
// (a command's process, a server's worker) is counted to its last sample,
// one that appears from its start (its whole life is in the window).
type waitTracker struct {
	w           *Waits
	mu          sync.Mutex
	first, last map[int]host.SchedStat
	read        bool // a thread list was read
	pressure0   *cgroup.Pressure
	pressureOK  bool
	pressure1   *cgroup.Pressure
	started     bool
}

func newWaitTracker(w *Waits) *waitTracker {
	return &waitTracker{w: w, first: map[int]host.SchedStat{}, last: map[int]host.SchedStat{}}
}

// sample reads every thread's counters now. A reader that fails leaves
// the sample out: it never fails a run.
func (t *waitTracker) sample() {
	if t == nil || t.w == nil {
		return
	}
	tids, err := t.w.Threads()
	if err != nil || len(tids) > maxWaitThreads {
		return
	}
	read := make(map[int]host.SchedStat, len(tids))
	for _, tid := range tids {
		if s, err := t.w.SchedStat(tid); err == nil {
			read[tid] = s
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for tid, s := range read {
		if _, seen := t.first[tid]; !seen {
			if t.started {
				t.first[tid] = host.SchedStat{} // born in the window
			} else {
				t.first[tid] = s
			}
		}
		t.last[tid] = s
	}
	t.read, t.started = true, true
}

// open takes the window's first sample and the pressure at its start.
func (t *waitTracker) open() {
	if t == nil || t.w == nil {
		return
	}
	t.sample()
	if t.w.Pressure != nil {
		if p, ok, err := t.w.Pressure(); err == nil && ok {
			t.pressure0, t.pressureOK = &p, true
		}
	}
}

// every samples every PeakInterval until the returned stop is called.
func (t *waitTracker) every() (stop func()) {
	if t == nil || t.w == nil {
		return func() {}
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(PeakInterval)
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

// close takes the last sample and the pressure at the end, and gives the
// window's waits; nil where no thread list was read.
func (t *waitTracker) close() *build.Waits {
	if t == nil || t.w == nil {
		return nil
	}
	t.sample()
	if t.pressureOK {
		if p, ok, err := t.w.Pressure(); err == nil && ok {
			t.pressure1 = &p
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.read {
		return nil
	}
	w := &build.Waits{Threads: len(t.last)}
	for tid, l := range t.last {
		f := t.first[tid]
		if l.RunDelay >= f.RunDelay && l.OnCPU >= f.OnCPU { // a reused TID starts again from 0: left out
			w.RunDelay += l.RunDelay - f.RunDelay
			w.OnCPU += l.OnCPU - f.OnCPU
		}
	}
	if t.pressure0 != nil && t.pressure1 != nil && t.pressure1.Some >= t.pressure0.Some && t.pressure1.Full >= t.pressure0.Full {
		some, full := t.pressure1.Some-t.pressure0.Some, t.pressure1.Full-t.pressure0.Full
		w.PressureSome, w.PressureFull = &some, &full
	}
	return w
}
