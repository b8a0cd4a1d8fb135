package fleet

import (
	"fmt"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
)

// One instance: its goroutine makes its slice, starts its process there,
// relays what it says and removes the slice when it has ended.

// instance is one instance's goroutine: it creates the slice, starts the
// process in it, relays what the process says, and when the process has
// ended (or could not start) reads the slice's counters and removes it.
func (r *fleetRun) instance(li *liveInstance) {
	defer r.wg.Done()
	emit := func(e fleetEvent) {
		e.id = li.id
		select {
		case r.events <- e:
		case <-r.quit:
		}
	}
	// The default parent is removed once, when the whole run ends.
	slice, err := r.place.NewSlice(r.o)
	if err != nil {
		emit(fleetEvent{fatal: r.place.NeedsPrivilege(err, "")})
		return
	}
	r.startTrace()
	r.tw.Track(slice.Cgroup().Dir)
	li.mu.Lock()
	li.group = r.tw.GroupOf(slice.Cgroup().Dir)
	li.mu.Unlock()
	defer func() {
		// The process has ended (its Kill, deferred later, ran first):
		// the slice's usage counter holds all the CPU it used in there,
		// also for an instance that died before it was ever sampled.
		st, serr := slice.Stat()
		if serr == nil {
			r.tw.Counted(slice.Cgroup(), st) // the window's end finds it no more
		}
		r.tw.Untrack(slice.Cgroup().Dir)
		usage, uerr := slice.Usage()
		li.mu.Lock()
		li.stat, li.statErr = st, serr
		if uerr == nil {
			li.cpu, li.cpuOK = max(li.cpu, usage), true
		}
		li.mu.Unlock()
		if err := slice.Delete(); err != nil {
			r.warn(report.Warn(report.KindSliceLeft, "the slice of instance %d could not be removed: %v", li.id, err))
		}
	}()
	r.readFirst(slice)
	child, err := r.f.StartInstance(r.o.Exe, r.init, r.o.Stderr)
	if err != nil {
		emit(fleetEvent{fatal: err})
		return
	}
	defer child.Kill()
	if !li.setChild(child) {
		return // killed while it started
	}
	if err := slice.AddProc(child.Pid()); err != nil {
		emit(fleetEvent{fatal: fmt.Errorf("move instance process into %s: %w", slice.Cgroup().Dir, err)})
		return
	}
	if err := child.Go(); err != nil {
		emit(fleetEvent{at: r.now(), ended: fmt.Errorf("start: %w", err)})
		return
	}
	for {
		ready, reply, err := child.Next()
		at := r.now()
		if err != nil {
			li.mu.Lock()
			li.ended = true
			li.mu.Unlock()
			emit(fleetEvent{at: at, ended: err})
			return
		}
		emit(fleetEvent{at: at, ready: ready, reply: reply})
	}
}

// readFirst keeps the first slice's limits as the kernel took them.
func (r *fleetRun) readFirst(s runner.Slice) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.first != nil {
		return
	}
	limits, chain, err := runner.ReadBack(s)
	r.first = &firstSlice{cg: s.Cgroup(), limits: limits, chain: chain, err: err}
}

func (li *liveInstance) setChild(c InstanceChild) bool {
	li.mu.Lock()
	defer li.mu.Unlock()
	if li.killed {
		return false
	}
	li.child = c
	return true
}

func (li *liveInstance) getChild() InstanceChild {
	li.mu.Lock()
	defer li.mu.Unlock()
	return li.child
}

// kill ends the instance's process now, or as soon as it has one.
func (li *liveInstance) kill() {
	li.mu.Lock()
	li.killed = true
	c := li.child
	li.mu.Unlock()
	if c != nil {
		c.Kill()
	}
}

// warn adds a warning to the result, from any goroutine.
func (r *fleetRun) warn(w report.Warning) {
	r.warnMu.Lock()
	r.warns = append(r.warns, w)
	r.warnMu.Unlock()
}
