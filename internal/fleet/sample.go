package fleet

import (
	"sync"
	"time"
)

// The instances' CPU time and memory, read from outside while they live.

// measure reads an instance's CPU time and memory while it lives. Its
// CPU time only grows: the most read (here, or from its slice's usage
// once it has ended) is kept.
func (r *fleetRun) measure(li *liveInstance, pid int) (rss int64) {
	cpu, cerr := r.k.PIDCPU(pid)
	mem, merr := r.f.ProcMemory(pid)
	li.mu.Lock()
	defer li.mu.Unlock()
	if cerr == nil {
		li.cpu, li.cpuOK = max(li.cpu, cpu), true
	}
	if merr == nil {
		li.mem.RSS = mem.RSS
		li.mem.Peak = max(li.mem.Peak, mem.Peak, mem.RSS)
		return mem.RSS
	}
	return 0
}

// sample reads every live instance's memory and CPU time every
// SampleEvery, keeping the peak of their memory together, until the
// returned stop is called.
func (r *fleetRun) sample() (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(r.f.SampleEvery)
		defer t.Stop()
		for {
			r.mu.Lock()
			live := append([]*liveInstance(nil), r.insts...)
			r.mu.Unlock()
			var sum int64
			for _, li := range live {
				li.mu.Lock()
				c, ended := li.child, li.ended
				li.mu.Unlock()
				if c != nil && !ended {
					sum += r.measure(li, c.Pid())
				}
			}
			r.peakRSS = max(r.peakRSS, sum)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-stopped
		})
	}
}
