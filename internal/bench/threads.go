package bench

import (
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// Why a worker is locked to its OS thread, and when it need not be.
//
// Locked, a worker's thread runs nothing else, so the thread's CPU clock,
// its getrusage counters and the kernel's count of its migrations are the
// worker's alone. The price is paid at every preemption: the Go scheduler
// preempts a goroutine that has run 10 ms of wall time without a pause,
// and a locked one cannot simply be picked up again by its own thread; the
// thread hands its P to another thread and sleeps until that one hands it
// back, two wake-ups of two threads. Under a quota of 1 ms per 10 ms
// period a batch runs ten times longer than its CPU time, so this comes
// every period or two, and the slice pays the hand-offs' CPU time,
// whichever thread spends it: the seed's bcrypt experiment ran about 4%
// slower per hash here than under its own tool, which does not lock, and
// as fast once a lone worker went unlocked (docs/run.md, "Reading the
// numbers").
//
// A lone worker needs no lock. With one worker, GOMAXPROCS 1 and nothing
// else in the process wanting the P (the workload child, RunAlone), a
// preempted goroutine goes back on the run queue and the same thread,
// the only one holding a P, takes it again: the thread is the worker's
// all the same. What could move it is another thread taking over the P
// while the worker sits in a system call the scheduler sees: the
// workload's own (hence Compute workloads only), or the driver's reads
// around a batch, which are raw system calls for that reason (and, locked
// or not, so that sysmon never takes the P from a worker throttled inside
// one). A lone worker checks its thread id at every operation boundary
// all the same; a batch in which it changed threads reports the process's
// counters (Result.ThreadMoves says how many).

// lone says whether cfg's worker can run unlocked in a process of its own:
// one worker, GOMAXPROCS 1 in force, no placement (an affinity is a
// thread's), no waits (a sleeping goroutine may wake on another thread),
// and a workload whose operations only compute.
func lone(cfg runspec.ClosedLoop, gomaxprocs int) bool {
	if cfg.Workers != 1 || gomaxprocs != 1 || cfg.Pin || cfg.OnePerCore || cfg.Slow(0) {
		return false
	}
	spec, err := decl.Lookup(cfg.Workload)
	return err == nil && spec.Compute
}

// threadReading is what a worker reads of its thread around a batch; a
// lone worker also reads its thread id and the process's counters, which
// stand in for the thread's in a batch it did not spend on one thread.
type threadReading struct {
	tid       int
	cpu       time.Duration
	usage     threadCounters
	mig       uint64
	migOK     bool
	procCPU   time.Duration
	procUsage threadCounters
}

// threadReader holds the reads tests replace: the thread id and the
// process's counters (nil: the kernel's).
type threadReader struct {
	tid     func() int
	process func() (time.Duration, threadCounters)
}

func (tr threadReader) withDefaults() threadReader {
	if tr.tid == nil {
		tr.tid = gettid
	}
	if tr.process == nil {
		tr.process = func() (time.Duration, threadCounters) { return processCPU(), processUsage() }
	}
	return tr
}

// begin reads the counters before a batch, its CPU clock last so that the
// other reads stay out of the batch's CPU time.
func (tr threadReader) begin(f *schedFile, lone bool) threadReading {
	var r threadReading
	if lone {
		r.tid = tr.tid()
		r.procCPU, r.procUsage = tr.process()
	}
	r.mig, r.migOK = f.migrations()
	r.usage = threadUsage()
	r.cpu = threadCPU()
	return r
}

// end reads them after a batch, in the opposite order.
func (tr threadReader) end(f *schedFile, lone bool) threadReading {
	var r threadReading
	r.cpu = threadCPU()
	r.usage = threadUsage()
	r.mig, r.migOK = f.migrations()
	if lone {
		r.procCPU, r.procUsage = tr.process()
	}
	return r
}

// sample is the batch between r0 and r1 (CPU time, faults, switches,
// migrations; the caller adds the rest). moved: the worker changed threads
// during it, so its thread's counters are not its own; the process's stand
// in (every thread: the Go runtime's own ones too), and migrations are
// left to the sampled CPUs.
func (r1 threadReading) sample(r0 threadReading, moved bool) WorkerSample {
	cpu, u := r1.cpu-r0.cpu, r1.usage.sub(r0.usage)
	if moved {
		cpu, u = r1.procCPU-r0.procCPU, r1.procUsage.sub(r0.procUsage)
	}
	s := WorkerSample{CPU: cpu, FaultsMinor: u.minor, FaultsMajor: u.major,
		CtxVoluntary: u.voluntary, CtxInvoluntary: u.involuntary}
	if !moved && r0.migOK && r1.migOK && r1.mig >= r0.mig {
		s.Migrations, s.KernelMigrations = r1.mig-r0.mig, true
	}
	return s
}
