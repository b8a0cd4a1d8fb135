package fleet

import (
	"context"
	"fmt"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/instances"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// The fleet's dispatcher: one goroutine that runs the schedule through the
// instances.Machine, carries out its actions and hears the instances' news.

func (r *fleetRun) now() int64 { return r.f.Monotonic() }

func (r *fleetRun) run(ctx context.Context) (*report.Latency, error) {
	end, bg, err := r.serve(ctx)
	if err != nil {
		return nil, err
	}
	return r.build(end, bg)
}

// serve dispatches the schedule (r.sched, else the run's) until every
// request is done and every instance has ended, and returns when the last
// request was done and what else the machine did meanwhile: this
// process's CPU time (the dispatcher's) beside the machine's. The
// instances' slices are read each on its own (fleet_instance.go).
func (r *fleetRun) serve(ctx context.Context) (int64, build.Background, error) {
	w := runner.Window{HostCPU: r.k.HostCPUOf(r.o), Process: r.k.ProcessCPU}
	end, m, err := runner.RunWindow(ctx, w, func(open func() error) (int64, error) {
		if err := open(); err != nil {
			return 0, err
		}
		return r.dispatch(ctx)
	}, nil)
	return end, m.Background, err
}

// dispatch is serve's loop: it returns when the last request was done.
func (r *fleetRun) dispatch(ctx context.Context) (int64, error) {
	sched := r.sched
	if sched == nil {
		sched = runspec.Schedule(r.o.Open)
	}
	r.reqs = make([]reqRecord, len(sched))
	for i := range r.reqs {
		r.reqs[i].instance = -1
	}
	defer r.stop()
	sampling := r.sample()

	r.t0 = r.now()
	next := 0
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := r.now()
		// A primed schedule's requests after the primer wait for its
		// answer: they start from then, however long the cold start took.
		for next < len(sched) && (!r.primed || next != 1 || r.primerDone(now)) && r.t0+int64(sched[next]) <= now {
			r.reqs[next].arrival = r.t0 + int64(sched[next])
			r.late = max(r.late, time.Duration(now-r.reqs[next].arrival))
			r.apply(ctx, now, r.m.Arrive(time.Duration(now), next))
			next++
		}
		if r.fatal != nil {
			sampling()
			return 0, r.fatal
		}
		if next == len(sched) && r.m.Idle() {
			break
		}
		wake, ok := int64(0), false
		if next < len(sched) && (!r.primed || next != 1 || r.primerDone(now)) {
			wake, ok = r.t0+int64(sched[next]), true
		}
		if d, has := r.m.Deadline(); has && (!ok || int64(d) < wake) {
			wake, ok = int64(d), true
		}
		var tick <-chan time.Time
		if ok {
			timer.Reset(time.Duration(max(wake-now, 0)))
			tick = timer.C
		}
		select {
		case e := <-r.events:
			r.handle(ctx, e)
		case <-tick:
			t := r.now()
			r.apply(ctx, t, r.m.Tick(time.Duration(t)))
		case <-ctx.Done():
			sampling()
			return 0, ctx.Err()
		}
		timer.Stop() // since Go 1.23 a stopped timer delivers nothing stale
		if r.fatal != nil {
			sampling()
			return 0, r.fatal
		}
	}
	end := r.now()
	r.apply(ctx, end, r.m.Drain(time.Duration(end)))
	r.awaitEnds(ctx)
	sampling()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	r.stop()
	return end, nil
}

// primerDone says whether the primer (request 0 of a primed schedule) has
// been answered or has failed. The first time it has, r.t0 moves so that
// request 1 arrives now and the rest keep their gaps.
func (r *fleetRun) primerDone(now int64) bool {
	q := &r.reqs[0]
	if q.reply == nil && q.failed == "" {
		return false
	}
	if !r.rebased {
		r.rebased = true
		r.t0 = now - int64(r.sched[1])
	}
	return true
}

// apply carries out the machine's actions; one that fails (a send to an
// instance that died) adds the machine's answer to it.
func (r *fleetRun) apply(ctx context.Context, now int64, acts []instances.Action) {
	for len(acts) > 0 {
		a := acts[0]
		acts = acts[1:]
		switch a.Kind {
		case instances.Start:
			li := &liveInstance{id: a.Instance, asked: now}
			r.mu.Lock()
			r.insts = append(r.insts, li)
			r.mu.Unlock()
			r.wg.Add(1)
			go r.instance(li)
		case instances.Send:
			li := r.insts[a.Instance]
			q := &r.reqs[a.Request]
			q.instance, q.cold = a.Instance, a.Cold
			q.sent = r.now()
			err := li.getChild().Send(bench.InstanceRequest{ID: a.Request, Work: r.o.Open.Work, Wait: r.o.Open.Wait})
			if err != nil {
				li.kill()
				t := r.now()
				acts = append(acts, r.m.Failed(time.Duration(t), a.Instance, fmt.Sprintf("instance %d: %v", a.Instance, err))...)
			}
		case instances.Retire:
			r.retire(r.insts[a.Instance])
		case instances.Fail:
			if q := &r.reqs[a.Request]; q.failed == "" {
				q.failed = a.Reason
			}
		}
	}
}

// retire reads an instance's last numbers while it lives, then lets it
// end (its goroutine removes its slice); one still starting is killed.
func (r *fleetRun) retire(li *liveInstance) {
	li.retired = true
	child := li.getChild()
	if child == nil {
		li.kill()
		return
	}
	r.measure(li, child.Pid())
	child.Retire()
}

// handle is the dispatcher's side of an instance's news.
func (r *fleetRun) handle(ctx context.Context, e fleetEvent) {
	li := r.insts[e.id]
	switch {
	case e.fatal != nil:
		if r.fatal == nil {
			r.fatal = e.fatal
		}
	case e.ended != nil:
		if !li.retired {
			r.apply(ctx, e.at, r.m.Failed(time.Duration(e.at), e.id, fmt.Sprintf("instance %d: %v", e.id, e.ended)))
		}
	case e.ready != nil:
		li.ready, li.readyAt = e.ready, e.at
		r.apply(ctx, e.at, r.m.Ready(time.Duration(e.at), e.id))
	case e.reply != nil:
		id := e.reply.ID
		if id < 0 || id >= len(r.reqs) || r.reqs[id].instance != e.id || r.reqs[id].reply != nil {
			r.apply(ctx, e.at, r.m.Failed(time.Duration(e.at), e.id, fmt.Sprintf("instance %d replied to request %d, which it was not serving", e.id, id)))
			li.kill()
			return
		}
		r.reqs[id].reply, r.reqs[id].received = e.reply, e.at
		r.apply(ctx, e.at, r.m.Done(time.Duration(e.at), e.id, id))
	}
}

// awaitEnds waits, after the last retirement, for every instance to end
// and its slice to go; those that take longer than ExitWait are killed
// (stop), and the result says so.
func (r *fleetRun) awaitEnds(ctx context.Context) {
	r.quitOnce.Do(func() { close(r.quit) })
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(r.f.ExitWait):
		r.warn(report.Warn(report.KindKilled, "instances still running %v after they were retired: killed", r.f.ExitWait))
	case <-ctx.Done():
	}
}

// stop ends every instance (a no-op for those already ended) and waits
// until every slice has been removed. It is safe to call again.
func (r *fleetRun) stop() {
	r.quitOnce.Do(func() { close(r.quit) })
	r.mu.Lock()
	live := append([]*liveInstance(nil), r.insts...)
	r.mu.Unlock()
	for _, li := range live {
		li.kill()
	}
	r.wg.Wait()
}
