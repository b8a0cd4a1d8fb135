package sweep

import (
	"math"
	"time"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/report"
)

// Estimator predicts how long a configuration runs from the CFS model:
// the CPU time its iterations need, spread over the CPUs it may use. It
// learns the cost of one operation from each finished run.
type Estimator struct {
	// opCost is the CPU time of one operation at cost 4; each cost step
	// doubles bcrypt's work. 1ms is what we measured on our machines.
	opCost time.Duration
	// A command's run has no model until one ran: its CPU time per
	// iteration (0: not known yet) and the CPUs it kept busy at once.
	cmdCPU time.Duration
	cmdPar float64
}

// NewEstimator starts from 1ms per bcrypt hash at cost 4.
func NewEstimator() *Estimator { return &Estimator{opCost: time.Millisecond} }

// Shape is what the estimate needs of a configuration.
type Shape struct {
	Cost, Batch, Iterations, Warmup, Workers, GOMAXPROCS int
	MinTime                                              time.Duration // --min-time: the measured iterations last at least this
	CPUs                                                 float64       // quota/period; 0 or +Inf = unlimited
	NumCPU                                               int
	// Alone: a workload run once per iteration as a process of its own
	// (the command), whose cost only a finished run tells.
	Alone bool
}

// Unknown says that s's time cannot be estimated yet: a command's, before
// a run of it taught the estimator its cost (Learn).
func (e *Estimator) Unknown(s Shape) bool { return s.Alone && e.cmdCPU == 0 }

// Estimate is the expected wall time of a whole run, at most the longest
// Duration (292 years: cost 31 on a thousand workers gets there).
func (e *Estimator) Estimate(s Shape) time.Duration {
	ns := e.EstimateSeconds(s) * float64(time.Second)
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// EstimateSeconds is Estimate in seconds, without an upper bound.
func (e *Estimator) EstimateSeconds(s Shape) float64 {
	cpus := s.CPUs
	if !(cpus > 0) || math.IsInf(cpus, 0) {
		cpus = float64(s.NumCPU)
	}
	gmp := s.GOMAXPROCS
	if gmp <= 0 {
		gmp = s.NumCPU
	}
	if s.Alone {
		// The CPU time of a run, spread over the CPUs it kept busy, at
		// most the limit's; 0 while not known (Unknown).
		iter := model.ExpectedDuration(float64(e.cmdCPU), math.Min(e.cmdPar, math.Min(cpus, float64(s.NumCPU))))
		measured := max(iter*float64(s.Iterations), float64(s.MinTime))
		return (iter*float64(s.Warmup) + measured) / float64(time.Second)
	}
	par := model.Parallelism(s.Workers, gmp, math.Min(cpus, float64(s.NumCPU)))
	iter := model.ExpectedDuration(float64(e.opCost)*math.Pow(2, float64(s.Cost-4))*float64(s.Batch*s.Workers), par)
	measured := max(iter*float64(s.Iterations), float64(s.MinTime))
	return (iter*float64(s.Warmup) + measured) / float64(time.Second)
}

// Learn updates the cost of one operation from a finished run; of a
// command, the CPU time of one run and the CPUs it kept busy: as measured
// where the limit did not hold it back, else at least one (the command's
// own parallelism is not known above the limit it ran at).
func (e *Estimator) Learn(r *report.Report) {
	if spec, err := decl.Lookup(r.Config.Workload); err == nil && spec.Alone {
		cpu, wall := r.Model.CPUMsPerIteration, r.Stats.MeanMs
		if cpu <= 0 || wall <= 0 {
			return
		}
		par := cpu / wall
		if limit := r.Cgroup.EffectiveCPUs; limit > 0 && par >= 0.9*limit {
			par = max(par, 1)
		}
		e.cmdCPU, e.cmdPar = time.Duration(cpu*float64(time.Millisecond)), par
		return
	}
	ops := float64(r.Config.Batch*r.Config.Workers) * math.Pow(2, float64(r.Config.Params.Int("cost")-4))
	if ops > 0 && r.Model.CPUMsPerIteration > 0 {
		e.opCost = time.Duration(r.Model.CPUMsPerIteration / ops * float64(time.Millisecond))
	}
}
