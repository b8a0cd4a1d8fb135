package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// WorkerSample is one worker's share of one iteration.
type WorkerSample struct {
	Wall time.Duration `json:"wall_ns"` // from the iteration's start until this worker finished
	CPU  time.Duration `json:"cpu_ns"`  // this worker's thread CPU time during the iteration
	Ops  int           `json:"ops"`     // operations this worker completed
	// Page faults and context switches of this worker's thread during the
	// iteration (one getrusage RUSAGE_THREAD before, one after; 0 where
	// there is none).
	FaultsMinor    uint64 `json:"faults_minor"`
	FaultsMajor    uint64 `json:"faults_major"`
	CtxVoluntary   uint64 `json:"ctx_switches_voluntary"`
	CtxInvoluntary uint64 `json:"ctx_switches_involuntary"`
	// CPUs the thread was on at the operation boundaries (getcpu before
	// the first operation and after each), ascending; none where getcpu is
	// missing.
	CPUs []int `json:"cpus,omitempty"`
	// CPUChanges counts consecutive samples on different CPUs: a lower
	// bound on the migrations, which misses a move and back between two
	// samples and one while the thread slept.
	CPUChanges uint64 `json:"cpu_changes"`
	// Migrations is the kernel's own count over the iteration
	// (se.nr_migrations, read before and after the batch) when
	// KernelMigrations; 0 otherwise.
	Migrations       uint64 `json:"migrations"`
	KernelMigrations bool   `json:"kernel_migrations"`
	// TID is the worker's thread over the iteration (gettid: the
	// kernel's id in the child's PID namespace), whose switches split the
	// iteration's time by cause (--trace); 0 where it changed threads or
	// is not known (a command's run).
	TID int32 `json:"tid,omitempty"`
}

// subStat is what the counters moved from before to s; nil where either
// lacks one.
func subStat(s, before runspec.IterStat) runspec.IterStat {
	u := func(a, b *uint64) *uint64 {
		if a == nil || b == nil || *a < *b {
			return nil
		}
		d := *a - *b
		return &d
	}
	var out runspec.IterStat
	out.NrPeriods, out.NrThrottled = u(s.NrPeriods, before.NrPeriods), u(s.NrThrottled, before.NrThrottled)
	if s.ThrottledTime != nil && before.ThrottledTime != nil && *s.ThrottledTime >= *before.ThrottledTime {
		d := *s.ThrottledTime - *before.ThrottledTime
		out.ThrottledTime = &d
	}
	return out
}

// Iteration is one measured iteration.
type Iteration struct {
	// Stat is what the cgroup's throttling counters moved over the
	// iteration (a command's run, with runspec.ClosedLoop.Stat); nil otherwise.
	Stat    *runspec.IterStat `json:"stat,omitempty"`
	Wall    time.Duration     `json:"wall_ns"` // from start until the last worker finished
	Workers []WorkerSample    `json:"workers"`
	// StartMono is the iteration's start on CLOCK_MONOTONIC, the clock the
	// kernel stamps throttle events with: it ends at StartMono + Wall.
	StartMono int64 `json:"start_mono_ns,omitempty"`
}

// Result is what a run measured.
type Result struct {
	GOMAXPROCS int         `json:"gomaxprocs"` // the value in force during the run
	Iterations []Iteration `json:"iterations"`
	// MeasuredCPU is the process's CPU time, all its threads, over the
	// measured iterations alone (0 when unknown): read in the process, from
	// the first measured iteration's start to the last one's end. A child
	// alone in its slice has used that much of the slice's quota.
	MeasuredCPU time.Duration `json:"measured_cpu_ns,omitempty"`
	// AllowedCPUs are the CPUs the workers could run on: the process's
	// affinity where it ran (its cpuset, a container's), one per core with
	// OnePerCore; empty where not known. PinnedCPUs is each worker's CPU
	// with Pin, by worker.
	AllowedCPUs []int `json:"allowed_cpus,omitempty"`
	PinnedCPUs  []int `json:"pinned_cpus,omitempty"`
	// ThreadMoves counts the measured iterations in which a lone worker
	// (RunAlone) was found on another thread: their CPU time, faults and
	// context switches are the process's, their migrations the sampled ones.
	ThreadMoves int `json:"thread_moves,omitempty"`
}

// ApplyGOMAXPROCS sets GOMAXPROCS as cfg asks and returns the value in force.
// 0 restores the runtime's default, which Go ≥ 1.25 derives from the CPU
// limit of the cgroup the process is in now.
func ApplyGOMAXPROCS(n int) int {
	if n > 0 {
		runtime.GOMAXPROCS(n)
	} else {
		runtime.SetDefaultGOMAXPROCS()
	}
	return runtime.GOMAXPROCS(0)
}

// Run executes cfg in the calling process: cfg.Warmup discarded iterations,
// then cfg.Iterations measured ones, and more while the measured ones span
// less than cfg.MinTime (up to runspec.MaxIterations). Each worker is a goroutine locked to its
// own OS thread, so its thread CPU clock measures its work alone, and so do
// its getrusage counters (faults, context switches) and the kernel's count
// of its migrations, all read around each batch; where it ran is sampled at
// each operation boundary (getcpu, one system call). Run stops between
// operations when ctx is cancelled.
//
// beforeMeasure, when not nil, is called between the warm-up and the first
// measured iteration, so the caller can take the kernel's counters over the
// measured iterations alone.
func Run(ctx context.Context, cfg runspec.ClosedLoop, beforeMeasure func() error) (Result, error) {
	return runner{newWorkload: workload.New, maxIterations: runspec.MaxIterations, processCPU: host.ProcessCPU, placer: kernelPlacer}.run(ctx, cfg, beforeMeasure)
}

// RunAlone is Run in a process that runs nothing but the workload (the
// workload child): there a lone worker (see lone) runs without being
// locked to its thread, which spares the slice two thread hand-offs at
// every preemption (threads.go says why, and why its thread's counters are
// still its own).
func RunAlone(ctx context.Context, cfg runspec.ClosedLoop, beforeMeasure func() error) (Result, error) {
	return runner{newWorkload: workload.New, maxIterations: runspec.MaxIterations, processCPU: host.ProcessCPU, placer: kernelPlacer,
		alone: true}.run(ctx, cfg, beforeMeasure)
}

// runner holds what tests replace: the workload, the bound on
// iterations, the process's CPU clock (nil: not read), the placement's
// system calls (zero: the kernel's) and the threads' reads (zero: the
// kernel's). alone: the process runs nothing else (RunAlone).
type runner struct {
	newWorkload   func(name string, ps report.Params, batch int) (workload.Workload, error)
	maxIterations int
	processCPU    func() (time.Duration, error)
	placer        placer
	threads       threadReader
	alone         bool
}

func (rn runner) run(ctx context.Context, cfg runspec.ClosedLoop, beforeMeasure func() error) (Result, error) {
	res := Result{GOMAXPROCS: ApplyGOMAXPROCS(cfg.GOMAXPROCS)}
	if rn.placer.affinity == nil {
		rn.placer = kernelPlacer
	}
	pins, err := rn.placer.place(cfg)
	if err != nil {
		return Result{}, err
	}
	res.AllowedCPUs, res.PinnedCPUs = pins.cpus, pins.pinned(cfg.Workers)
	free := rn.alone && lone(cfg, res.GOMAXPROCS)
	rn.threads = rn.threads.withDefaults()
	ws := make([]workload.Workload, cfg.Workers)
	for i := range ws {
		w, err := rn.newWorkload(cfg.Workload, cfg.Params, cfg.Batch)
		if err != nil {
			return Result{}, err
		}
		if cfg.Slow(i) {
			w = workload.WithWaits(w, cfg.Sleep, cfg.SleepEvery)
		}
		ws[i] = w
	}

	// A workload that runs a process per operation (the command) is timed
	// from the process's start to its exit, prepared before each iteration
	// and handed the run's context (workload.ProcessWorkload).
	if pw, ok := ws[0].(workload.ProcessWorkload); ok && cfg.Workers == 1 {
		return rn.runProcess(ctx, cfg, pw, res, beforeMeasure)
	}

	starts := make([]chan time.Time, cfg.Workers)
	results := make(chan batchDone, cfg.Workers)
	placed := make(chan error, cfg.Workers)
	for i := range starts {
		starts[i] = make(chan time.Time)
		w := worker{rn: rn, id: i, w: ws[i], batch: cfg.Batch, free: free, pins: pins}
		go w.run(ctx, starts[i], placed, results)
	}
	defer func() {
		for _, s := range starts {
			close(s)
		}
	}()
	var misplaced []error
	for range cfg.Workers {
		misplaced = append(misplaced, <-placed)
	}
	if err := errors.Join(misplaced...); err != nil {
		return Result{}, err
	}

	// Iterations run back to back: each starts the instant the previous one
	// ended, not when this goroutine gets round to signalling the workers.
	// Under a quota this goroutine is throttled too, and a fresh time.Now()
	// would start every iteration at the beginning of a period, with a full
	// quota: the best case, hiding the throttled gap in between.
	var t0 time.Time
	// base is when t0 was last read afresh, and baseMono CLOCK_MONOTONIC
	// then: an iteration's start on that clock is baseMono + (t0 − base).
	var base time.Time
	var baseMono int64
	var window time.Duration // of the measured iterations so far
	var cpu0 *time.Duration  // the process's CPU time when they began
	more := func(it int) bool {
		measured := it - cfg.Warmup
		return it < cfg.Warmup+cfg.Iterations || window < cfg.MinTime && measured < rn.maxIterations
	}
	for it := 0; more(it); it++ {
		if it == cfg.Warmup && beforeMeasure != nil {
			if err := beforeMeasure(); err != nil {
				return Result{}, err
			}
			t0 = time.Time{} // the pause for the caller is not the workload's
		}
		if it == cfg.Warmup {
			cpu0 = rn.readCPU()
		}
		if t0.IsZero() {
			t0 = time.Now()
			base, baseMono = t0, Monotonic()
		}
		for _, s := range starts {
			s <- t0
		}
		iter := Iteration{Workers: make([]WorkerSample, cfg.Workers), StartMono: baseMono + int64(t0.Sub(base))}
		var errs []error
		for range cfg.Workers {
			d := <-results
			errs = append(errs, d.err)
			if d.moved && it >= cfg.Warmup {
				res.ThreadMoves++
			}
			// time.Time carries the monotonic clock, so Sub is immune to clock steps.
			d.sample.Wall = d.end.Sub(t0)
			iter.Workers[d.id] = d.sample
			iter.Wall = max(iter.Wall, d.end.Sub(t0))
		}
		if err := errors.Join(errs...); err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			return Result{}, fmt.Errorf("iteration %d: %w", it, err)
		}
		if it >= cfg.Warmup {
			res.Iterations = append(res.Iterations, iter)
			window += iter.Wall
		}
		t0 = t0.Add(iter.Wall)
	}
	// The workers are idle now, waiting for an iteration that never comes.
	if cpu1 := rn.readCPU(); cpu0 != nil && cpu1 != nil && *cpu1 > *cpu0 {
		res.MeasuredCPU = *cpu1 - *cpu0
	}
	return res, nil
}

// batchDone is one worker's report of one iteration's batch.
type batchDone struct {
	id     int
	end    time.Time
	sample WorkerSample // but Wall
	moved  bool         // a lone worker changed threads
	err    error
}

// worker is one of the closed loop's workers: worker id of the run, w its
// workload, batch the operations it runs per iteration; free says it is a
// lone worker, not locked to its thread (RunAlone), pins where it runs.
type worker struct {
	rn    runner
	id    int
	w     workload.Workload
	batch int
	free  bool
	pins  pinning
}

// run is the worker's goroutine: it places its thread (the outcome to
// placed), then, for each start received until start is closed, runs one
// batch and reports it to results.
func (wk worker) run(ctx context.Context, start <-chan time.Time, placed chan<- error, results chan<- batchDone) {
	locked := 0 // its thread, where it is locked to one
	if !wk.free {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		locked = gettid()
	}
	placed <- wk.pins.apply(wk.id)
	var where placement
	var sched schedFile
	for range start {
		results <- wk.batchOnce(ctx, &where, &sched, locked)
	}
}

// batchOnce runs one batch: up to batch operations, fewer where ctx ends
// or an operation fails. The file read and the system calls stay outside
// the operations; only getcpu (and a lone worker's gettid) runs between
// them.
func (wk worker) batchOnce(ctx context.Context, where *placement, sched *schedFile, locked int) batchDone {
	threads := wk.rn.threads
	r0 := threads.begin(sched, wk.free)
	where.reset()
	where.observe(getCPU())
	var err error
	ops, moved := 0, false
	for ops < wk.batch {
		if err = ctx.Err(); err != nil {
			break
		}
		if err = wk.w.Do(); err != nil {
			break
		}
		ops++
		where.observe(getCPU())
		moved = moved || wk.free && threads.tid() != r0.tid
	}
	end := time.Now()
	s := threads.end(sched, wk.free).sample(r0, moved)
	s.Ops, s.CPUs, s.CPUChanges = ops, where.cpus.List(), where.changes
	switch {
	case !wk.free:
		s.TID = int32(locked)
	case !moved:
		s.TID = int32(r0.tid)
	}
	return batchDone{id: wk.id, end: end, sample: s, moved: moved, err: err}
}

// runProcess is the closed loop of a workload that runs a process per
// iteration (decl.Spec.Alone: one worker, one run), on the calling
// goroutine: each run prepared, then timed from its fork to its wait
// (hyperfine's way: nothing back to back, no hand-off between threads
// around it), its CPU time and faults wait4's. GOMAXPROCS, when set, is
// the process's environment.
func (rn runner) runProcess(ctx context.Context, cfg runspec.ClosedLoop, pw workload.ProcessWorkload, res Result, beforeMeasure func() error) (Result, error) {
	// The command's parent-death signal follows the thread that forked it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cfg.GOMAXPROCS > 0 {
		defer setenv("GOMAXPROCS", strconv.Itoa(cfg.GOMAXPROCS))()
	}
	base, baseMono := time.Now(), Monotonic()
	var window time.Duration
	var cpu0 *time.Duration
	var last *runspec.IterStat // the counters after the last run
	for it := 0; it < cfg.Warmup+cfg.Iterations || window < cfg.MinTime && it-cfg.Warmup < rn.maxIterations; it++ {
		if it == cfg.Warmup {
			if beforeMeasure != nil {
				if err := beforeMeasure(); err != nil {
					return Result{}, err
				}
			}
			cpu0 = rn.readCPU()
		}
		err := ctx.Err()
		var st0, st1 runspec.IterStat
		var stErr error
		if err == nil {
			var prepared bool
			if prepared, err = pw.Prepare(ctx); err == nil {
				// The counters right around the run, outside its time:
				// the last run's closing reading opens this one, unless
				// --prepare ran in the slice in between.
				if cfg.Stat != nil {
					if last != nil && !prepared {
						st0 = *last
					} else {
						st0, stErr = cfg.Stat()
					}
				}
				err = pw.DoContext(ctx)
				if cfg.Stat != nil && stErr == nil {
					st1, stErr = cfg.Stat()
				}
				last = nil
				if stErr == nil {
					last = &st1
				}
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			return Result{}, fmt.Errorf("%s: %w", phase(it, cfg.Warmup), err)
		}
		if it < cfg.Warmup {
			continue
		}
		p := pw.Last()
		wall := p.End.Sub(p.Start)
		res.Iterations = append(res.Iterations, Iteration{Wall: wall, StartMono: baseMono + int64(p.Start.Sub(base)),
			Workers: []WorkerSample{{Wall: wall, CPU: p.CPU, Ops: 1, FaultsMinor: p.FaultsMinor, FaultsMajor: p.FaultsMajor,
				CtxVoluntary: p.CtxVoluntary, CtxInvoluntary: p.CtxInvoluntary}}})
		if cfg.Stat != nil && stErr == nil {
			d := subStat(st1, st0)
			res.Iterations[len(res.Iterations)-1].Stat = &d
		}
		window += wall
	}
	if cpu1 := rn.readCPU(); cpu0 != nil && cpu1 != nil && *cpu1 > *cpu0 {
		// Ours, and the processes' it ran, which are not in our clock.
		res.MeasuredCPU = *cpu1 - *cpu0
		for _, it := range res.Iterations {
			res.MeasuredCPU += it.Workers[0].CPU
		}
	}
	return res, nil
}

// phase names iteration it: a warm-up run, or the n-th measured one.
func phase(it, warmup int) string {
	if it < warmup {
		return fmt.Sprintf("warm-up run %d of %d", it+1, warmup)
	}
	return fmt.Sprintf("measured run %d", it-warmup+1)
}

// setenv sets key in the process's environment (inherited by the
// processes it starts) and returns what puts it back.
func setenv(key, v string) func() {
	old, had := os.LookupEnv(key)
	os.Setenv(key, v)
	return func() {
		if had {
			os.Setenv(key, old)
		} else {
			os.Unsetenv(key)
		}
	}
}

// readCPU reads the process's CPU clock; nil when it cannot.
func (rn runner) readCPU() *time.Duration {
	if rn.processCPU == nil {
		return nil
	}
	c, err := rn.processCPU()
	if err != nil {
		return nil
	}
	return &c
}
